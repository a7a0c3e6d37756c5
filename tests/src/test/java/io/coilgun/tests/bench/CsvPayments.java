package io.coilgun.tests.bench;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeFormatterBuilder;
import java.time.temporal.ChronoField;
import java.util.Arrays;
import java.util.List;

/**
 * Payments replayed from a CSV file with a header line: {@code --csv FILE --csv-columns id,ts,card,merchant,amount}
 * names the file's columns that hold the event id, event time, card, merchant and amount (in that order). Times are
 * epoch milliseconds or {@code yyyy-MM-dd HH:mm:ss[.ffffff]} in UTC and are sent as they are (so they should rise
 * and not be ahead of the clock). No quoting: fields must not contain commas.
 */
final class CsvPayments implements PaymentSource {
    private static final DateTimeFormatter TS = new DateTimeFormatterBuilder().appendPattern("yyyy-MM-dd[ ]['T']HH:mm:ss")
            .optionalStart().appendFraction(ChronoField.MICRO_OF_SECOND, 0, 6, true).optionalEnd().toFormatter();
    private final BufferedReader in;
    private final int[] columns = new int[5];

    CsvPayments(Path file, List<String> mapping) {
        if (mapping.size() != 5) {
            throw new IllegalArgumentException("--csv-columns names 5 columns: id,ts,card,merchant,amount");
        }
        try {
            in = Files.newBufferedReader(file, StandardCharsets.UTF_8);
            List<String> header = Arrays.asList(in.readLine().split(",", -1));
            for (int i = 0; i < 5; i++) {
                columns[i] = header.indexOf(mapping.get(i));
                if (columns[i] < 0) {
                    throw new IllegalArgumentException("column " + mapping.get(i) + " is not in " + file + "'s header "
                            + header);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public Payment next(long nowMicros) {
        try {
            String line = in.readLine();
            if (line == null) {
                return null;
            }
            String[] f = line.split(",", -1);
            return new Payment(Long.parseLong(f[columns[0]].trim()), time(f[columns[1]].trim()), f[columns[2]],
                    f[columns[3]], Double.parseDouble(f[columns[4]].trim()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static long time(String s) {
        if (s.chars().allMatch(Character::isDigit)) {
            return Long.parseLong(s) * 1000;
        }
        LocalDateTime t = LocalDateTime.parse(s, TS);
        return t.toEpochSecond(ZoneOffset.UTC) * 1_000_000 + t.getNano() / 1000;
    }
}
