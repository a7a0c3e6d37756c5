package io.coilgun.tests.bench;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** {@code --name value} options of {@code scripts/bench}, plain numbers where numbers are meant. */
final class BenchOptions {
    private final Map<String, String> values = new HashMap<>();

    BenchOptions(String[] args) {
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument " + args[i] + " (options are --name value)");
            }
            String name = args[i].substring(2);
            // the next word is this option's value unless it is an option itself ("--warm-up 0", one word with a
            // space, is a value: --server-args takes options of coilgun start)
            if (i + 1 >= args.length || args[i + 1].startsWith("--") && !args[i + 1].contains(" ")) {
                values.put(name, "true");
            } else {
                values.put(name, args[++i]);
            }
        }
    }

    String string(String name, String dflt) {
        return values.getOrDefault(name, dflt);
    }

    double number(String name, double dflt) {
        String v = values.get(name);
        try {
            return v == null ? dflt : Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " takes a plain number, not '" + v + "'");
        }
    }

    int integer(String name, int dflt) {
        return (int) number(name, dflt);
    }

    boolean has(String name) {
        return values.containsKey(name);
    }

    List<String> list(String name, String dflt) {
        List<String> out = new ArrayList<>();
        for (String s : string(name, dflt).split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
