package io.coilgun.tests.bench;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Reads {@code jcmd <pid> GC.class_histogram}: instances and bytes per class, and what grew between two. */
final class ClassHistogram {
    private static final Pattern ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

    private ClassHistogram() {
    }

    /** Class name to {instances, bytes}. */
    static Map<String, long[]> parse(String text) {
        Map<String, long[]> rows = new HashMap<>();
        for (String line : text.split("\n")) {
            Matcher m = ROW.matcher(line);
            if (m.find()) {
                rows.merge(m.group(3), new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2))},
                        (a, b) -> new long[] {a[0] + b[0], a[1] + b[1]});
            }
        }
        return rows;
    }

    /** The {@code top} classes whose live bytes grew most from {@code before} to {@code after}, as a table. */
    static String grown(Map<String, long[]> before, Map<String, long[]> after, int top) {
        StringBuilder out = new StringBuilder("class histogram: live bytes grown (instances) since before the fill\n");
        long total = 0;
        for (Map.Entry<String, long[]> e : after.entrySet()) {
            total += e.getValue()[1] - before.getOrDefault(e.getKey(), new long[2])[1];
        }
        out.append(String.format(Locale.ROOT, "  %,14d  all classes%n", total));
        after.entrySet().stream()
                .sorted((a, b) -> Long.compare(grownBytes(before, b), grownBytes(before, a)))
                .limit(top)
                .forEach(e -> out.append(String.format(Locale.ROOT, "  %,14d  %,10d  %s%n", grownBytes(before, e),
                        e.getValue()[0] - before.getOrDefault(e.getKey(), new long[2])[0], e.getKey())));
        return out.toString();
    }

    private static long grownBytes(Map<String, long[]> before, Map.Entry<String, long[]> e) {
        return e.getValue()[1] - before.getOrDefault(e.getKey(), new long[2])[1];
    }
}
