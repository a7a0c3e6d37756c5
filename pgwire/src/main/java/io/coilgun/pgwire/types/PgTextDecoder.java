package io.coilgun.pgwire.types;

import io.coilgun.pgwire.spi.PgType;
import io.coilgun.pgwire.spi.SqlStates;
import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Text format (format code 0) of parameter values read into the Java values {@link PgBinaryCodec#decode}
 * returns, accepting what Postgres' input functions accept with the session settings pgwire reports
 * (DateStyle {@code ISO, MDY}, TimeZone {@code UTC}, IntervalStyle {@code postgres}) — the common forms, not
 * every one: dates and timestamps must be ISO {@code YYYY-MM-DD[( |T)hh:mm[:ss[.f]]][zone][ BC]}.
 *
 * <p>Errors are {@link PgInputException}s worded and coded as Postgres words and codes them, e.g.
 * {@code invalid input syntax for type integer: "abc"} (22P02) or {@code value "99999999999" is out of range
 * for type integer} (22003).
 *
 * <p>Booleans, numbers and bytea are read here; dates and timestamps by {@link PgDateTimeInput}, intervals by
 * {@link PgIntervalInput}.
 */
public final class PgTextDecoder {
    /** Postgres 16 integer syntax: decimal, 0x/0o/0b, with single underscores between digits. */
    private static final Pattern INTEGER = Pattern.compile(
            "([+-]?)(?:(\\d++(?:_\\d++)*+)|0[xX]((?:_?[0-9a-fA-F]++)++)|0[oO]((?:_?[0-7]++)++)|0[bB]((?:_?[01]++)++))");
    private static final Pattern FLOAT = Pattern.compile("[+-]?(?:\\d++(?:\\.\\d*+)?|\\.\\d++)(?:[eE][+-]?\\d++)?");
    private static final Pattern NUMERIC = Pattern.compile(
            "[+-]?(?:\\d++(?:_\\d++)*+(?:\\.(?:\\d++(?:_\\d++)*+)?)?|\\.\\d++(?:_\\d++)*+)(?:[eE][+-]?\\d++)?");
    /** Postgres' limits of numeric: digits before and after the decimal point. */
    private static final int NUMERIC_MAX_INTEGER_DIGITS = 131_072;
    private static final int NUMERIC_MAX_SCALE = 0x3FFF;

    private PgTextDecoder() {
    }

    /**
     * The Java value of {@code text} read as {@code type}, or {@code null} for {@code null} (SQL NULL).
     *
     * @throws PgInputException when Postgres' input function would refuse the text too, or (SQLSTATE 0A000)
     *     for numeric NaN and ±Infinity, which {@link BigDecimal} cannot hold
     */
    public static Object decode(PgType type, String text) {
        if (text == null) {
            return null;
        }
        switch (type) {
            case BOOL:
                return bool(text);
            case INT2:
                return (short) integer(text, Short.MIN_VALUE, Short.MAX_VALUE, "smallint");
            case INT4:
                return (int) integer(text, Integer.MIN_VALUE, Integer.MAX_VALUE, "integer");
            case INT8:
                return integer(text, Long.MIN_VALUE, Long.MAX_VALUE, "bigint");
            case FLOAT4:
                return (float) floating(text, true);
            case FLOAT8:
                return floating(text, false);
            case NUMERIC:
                return numeric(text);
            case TEXT:
            case VARCHAR:
                return text;
            case BYTEA:
                return bytea(text);
            case DATE:
            case TIMESTAMP:
            case TIMESTAMPTZ:
                return PgDateTimeInput.read(type, text);
            case INTERVAL:
                return new PgIntervalInput(text).read();
            default:
                throw new IllegalArgumentException("no text input for type " + type.name().toLowerCase());
        }
    }

    /** {@link #decode} of UTF-8 bytes, refusing malformed UTF-8 and NUL (22021) as Postgres does. */
    public static Object decodeUtf8(PgType type, byte[] bytes) {
        return bytes == null ? null : decode(type, PgBinaryCodec.utf8(bytes, 0, bytes.length));
    }

    private static PgInputException syntax(String typeName, String text) {
        return InputSyntax.syntax(SqlStates.INVALID_TEXT_REPRESENTATION, typeName, text);
    }

    private static PgInputException outOfRange(String typeName, String text) {
        return new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE,
                "value \"" + text + "\" is out of range for type " + typeName);
    }

    // ---- bool, numbers, bytea

    /** boolin: any prefix of true/false/yes/no, at least "on"/"of" for on/off, or 1/0; case-insensitive. */
    private static Boolean bool(String text) {
        String s = InputSyntax.trim(text).toLowerCase(Locale.ROOT);
        if (!s.isEmpty()) {
            if ("true".startsWith(s) || "yes".startsWith(s) || s.equals("1")
                    || (s.length() >= 2 && "on".startsWith(s))) {
                return Boolean.TRUE;
            }
            if ("false".startsWith(s) || "no".startsWith(s) || s.equals("0")
                    || (s.length() >= 2 && "off".startsWith(s))) {
                return Boolean.FALSE;
            }
        }
        throw syntax("boolean", text);
    }

    private static long integer(String text, long min, long max, String typeName) {
        BigInteger value = parseInteger(InputSyntax.trim(text));
        if (value == null) {
            throw syntax(typeName, text);
        }
        if (value.bitLength() >= Long.SIZE || value.longValue() < min || value.longValue() > max) {
            throw outOfRange(typeName, text);
        }
        return value.longValue();
    }

    /** A Postgres 16 integer literal (sign, 0x/0o/0b prefix, underscores), or null when it is not one. */
    private static BigInteger parseInteger(String s) {
        Matcher m = INTEGER.matcher(s);
        if (!m.matches()) {
            return null;
        }
        int radix = m.group(2) != null ? 10 : m.group(3) != null ? 16 : m.group(4) != null ? 8 : 2;
        String digits = m.group(radix == 10 ? 2 : radix == 16 ? 3 : radix == 8 ? 4 : 5).replace("_", "");
        BigInteger value = new BigInteger(digits, radix);
        return m.group(1).equals("-") ? value.negate() : value;
    }

    /** float4in/float8in: decimal or NaN/Infinity/inf; overflow, and underflow to zero, are out of range. */
    private static double floating(String text, boolean float4) {
        String typeName = float4 ? "real" : "double precision";
        String s = InputSyntax.trim(text);
        String special = s.toLowerCase(Locale.ROOT);
        boolean negative = special.startsWith("-");
        if (negative || special.startsWith("+")) {
            special = special.substring(1);
        }
        if (special.equals("nan")) {
            return Double.NaN;
        }
        if (special.equals("infinity") || special.equals("inf")) {
            return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        if (!FLOAT.matcher(s).matches()) {
            throw syntax(typeName, text);
        }
        double value = float4 ? Float.parseFloat(s) : Double.parseDouble(s);
        if (Double.isInfinite(value) || (value == 0 && hasNonZeroMantissa(s))) {
            throw new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE,
                    "\"" + s + "\" is out of range for type " + typeName);
        }
        return value;
    }

    private static boolean hasNonZeroMantissa(String number) {
        for (int i = 0; i < number.length() && Character.toLowerCase(number.charAt(i)) != 'e'; i++) {
            if (number.charAt(i) >= '1' && number.charAt(i) <= '9') {
                return true;
            }
        }
        return false;
    }

    /**
     * numeric_in: decimal with optional exponent and underscores, or a 0x/0o/0b integer. The scale is kept
     * ({@code 1.50} has scale 2), never negative ({@code 1e3} is {@code 1000}).
     */
    private static BigDecimal numeric(String text) {
        String s = InputSyntax.trim(text);
        String special = s.toLowerCase(Locale.ROOT);
        if (special.equals("nan") || special.matches("[+-]?(inf|infinity)")) {
            throw new PgInputException(SqlStates.FEATURE_NOT_SUPPORTED,
                    "numeric \"" + s + "\" is not supported (no BigDecimal for NaN or infinity)");
        }
        BigDecimal value;
        if (NUMERIC.matcher(s).matches()) {
            try {
                value = new BigDecimal(s.replace("_", ""));
            } catch (NumberFormatException e) { // an exponent beyond int
                throw overflowsNumeric();
            }
        } else {
            BigInteger integer = parseInteger(s);
            if (integer == null) {
                throw syntax("numeric", text);
            }
            value = new BigDecimal(integer);
        }
        if (value.scale() > NUMERIC_MAX_SCALE
                || (long) value.precision() - value.scale() > NUMERIC_MAX_INTEGER_DIGITS) {
            throw overflowsNumeric();
        }
        return value.scale() < 0 ? value.setScale(0) : value;
    }

    private static PgInputException overflowsNumeric() {
        return new PgInputException(SqlStates.NUMERIC_VALUE_OUT_OF_RANGE, "value overflows numeric format");
    }

    /** byteain: hex format {@code \x0aff} (white space between bytes allowed), else the escape format. */
    private static byte[] bytea(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(text.length());
        if (text.startsWith("\\x")) {
            int i = 2;
            while (i < text.length()) {
                char c = text.charAt(i);
                if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
                    i++;
                    continue;
                }
                int high = hexDigit(c);
                if (i + 1 >= text.length()) {
                    throw new PgInputException(SqlStates.INVALID_PARAMETER_VALUE,
                            "invalid hexadecimal data: odd number of digits");
                }
                out.write(high << 4 | hexDigit(text.charAt(i + 1)));
                i += 2;
            }
            return out.toByteArray();
        }
        // Escape format: bytes as they are, except \\ for a backslash and \ooo (octal, up to \377) for any byte.
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < bytes.length; i++) {
            if (bytes[i] != '\\') {
                out.write(bytes[i]);
            } else if (i + 1 < bytes.length && bytes[i + 1] == '\\') {
                out.write('\\');
                i++;
            } else if (i + 3 < bytes.length && isOctal(bytes[i + 1], '3') && isOctal(bytes[i + 2], '7')
                    && isOctal(bytes[i + 3], '7')) {
                out.write((bytes[i + 1] - '0') << 6 | (bytes[i + 2] - '0') << 3 | (bytes[i + 3] - '0'));
                i += 3;
            } else {
                throw syntax("bytea", text);
            }
        }
        return out.toByteArray();
    }

    private static boolean isOctal(byte b, char max) {
        return b >= '0' && b <= max;
    }

    private static int hexDigit(char c) {
        int digit = Character.digit(c, 16);
        if (digit < 0 || c > 'f') { // Character.digit also takes non-ASCII digits
            throw new PgInputException(SqlStates.INVALID_PARAMETER_VALUE,
                    "invalid hexadecimal digit: \"" + c + "\"");
        }
        return digit;
    }
}
