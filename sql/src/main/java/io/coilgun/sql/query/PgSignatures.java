package io.coilgun.sql.query;

import io.coilgun.planner.error.CoilgunException;
import io.coilgun.planner.error.SqlState;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Postgres' function type resolution ("Type Conversion", Functions, in Postgres' manual) for calls whose arguments
 * include untyped parameters: which of a function's signatures Postgres 15 picks, and so the type each untyped
 * parameter takes ({@code has_table_privilege($1, $2, 'SELECT')}: name, text; {@code round($1)}: double precision),
 * or the error it gives ({@code date_trunc($1, $2)}: 42725, not unique; {@code concat($1)}: 42P18, a parameter of
 * type "any"). The signatures, type categories and implicit casts are Postgres 15's own (pg_signatures.tsv, read from
 * its catalog).
 *
 * <p>Types are Postgres' names as {@code format_type} prints them ({@code text}, {@code double precision},
 * {@code timestamp without time zone}); an argument of unknown type (an untyped parameter, a string literal,
 * NULL) is {@code null}.
 */
final class PgSignatures {
    /** One signature: its argument types (the last repeated when variadic) and how many have defaults. */
    record Signature(String name, List<String> args, boolean variadic, int defaults) {
        /** The argument types of a call of {@code n} arguments, or null when the signature takes no such call. */
        List<String> expanded(int n) {
            int m = args.size();
            if (variadic) {
                if (n < m) {
                    return null;
                }
                List<String> out = new ArrayList<>(args.subList(0, m - 1));
                String element = elementOf(args.get(m - 1));
                while (out.size() < n) {
                    out.add(element);
                }
                return out;
            }
            return n <= m && n >= m - defaults ? args.subList(0, n) : null;
        }
    }

    private static final Map<String, List<Signature>> FUNCTIONS = new HashMap<>();
    private static final Map<String, Character> CATEGORY = new HashMap<>();
    private static final Set<String> PREFERRED = new HashSet<>();
    private static final Map<String, Set<String>> IMPLICIT = new HashMap<>();

    static {
        try (InputStream in = PgSignatures.class.getResourceAsStream("pg_signatures.tsv");
                BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line; (line = r.readLine()) != null; ) {
                if (line.isBlank() || line.startsWith("#")) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                switch (f[0]) {
                    case "function" -> FUNCTIONS.computeIfAbsent(f[1], k -> new ArrayList<>()).add(new Signature(f[1],
                            f[2].isEmpty() ? List.of() : Arrays.stream(f[2].split(", ")).toList(), f[3].equals("t"),
                            Integer.parseInt(f[4])));
                    case "type" -> {
                        CATEGORY.put(f[1], f[2].charAt(0));
                        if (f[3].equals("t")) {
                            PREFERRED.add(f[1]);
                        }
                    }
                    case "cast" -> IMPLICIT.computeIfAbsent(f[1], k -> new HashSet<>()).add(f[2]);
                    default -> throw new IllegalStateException("pg_signatures.tsv: " + line);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private PgSignatures() {
    }

    /** Whether Postgres has a function of this (lower case) name. */
    static boolean has(String name) {
        return FUNCTIONS.containsKey(name);
    }

    /** Every function name of the table. */
    static Set<String> names() {
        return FUNCTIONS.keySet();
    }

    /**
     * The argument types of the signature Postgres picks for {@code name(args)}, or null when Postgres has no function
     * of that name (the caller falls back on its own rules).
     *
     * @param args each argument's type, null for an argument of unknown type
     * @throws CoilgunException 42883 when no signature takes the arguments, 42725 when Postgres could not choose
     */
    static List<String> resolve(String name, List<String> args) {
        List<Signature> all = FUNCTIONS.get(name);
        if (all == null) {
            return null;
        }
        int n = args.size();
        List<List<String>> candidates = new ArrayList<>();
        for (Signature s : all) {
            List<String> types = s.expanded(n);
            if (types != null && coercible(args, types)) {
                candidates.add(types);
            }
        }
        if (candidates.isEmpty()) {
            throw new CoilgunException(SqlState.UNDEFINED_FUNCTION, "function " + call(name, args)
                    + " does not exist", 0);
        }
        for (List<String> c : candidates) {
            if (c.equals(args)) {
                return c; // an exact match
            }
        }
        // keep the candidates with the most exact matches of known arguments
        candidates = best(candidates, c -> {
            int exact = 0;
            for (int i = 0; i < n; i++) {
                exact += args.get(i) != null && args.get(i).equals(c.get(i)) ? 1 : 0;
            }
            return exact;
        });
        // then those with preferred types where a known argument is converted
        candidates = best(candidates, c -> {
            int preferred = 0;
            for (int i = 0; i < n; i++) {
                preferred += args.get(i) != null && !args.get(i).equals(c.get(i)) && PREFERRED.contains(c.get(i))
                        ? 1 : 0;
            }
            return preferred;
        });
        if (candidates.size() == 1) {
            return candidates.get(0);
        }
        // unknown arguments: the string category if a candidate takes one, else the one category all take
        List<List<String>> left = new ArrayList<>(candidates);
        boolean resolved = true;
        for (int i = 0; i < n; i++) {
            if (args.get(i) != null) {
                continue;
            }
            Set<Character> categories = new HashSet<>();
            for (List<String> c : left) {
                categories.add(category(c.get(i)));
            }
            char chosen;
            if (categories.contains('S')) {
                chosen = 'S';
            } else if (categories.size() == 1) {
                chosen = categories.iterator().next();
            } else {
                resolved = false;
                break;
            }
            final int at = i;
            List<List<String>> inCategory = left.stream().filter(c -> category(c.get(at)) == chosen).toList();
            if (inCategory.stream().anyMatch(c -> PREFERRED.contains(c.get(at)))) {
                inCategory = inCategory.stream().filter(c -> PREFERRED.contains(c.get(at))).toList();
            }
            if (!inCategory.isEmpty()) {
                left = new ArrayList<>(inCategory);
            }
        }
        if (resolved && left.size() == 1) {
            return left.get(0);
        }
        // known arguments all of one type: the unknown ones taken as that type
        String only = null;
        boolean same = true;
        for (String a : args) {
            if (a != null) {
                same &= only == null || only.equals(a);
                only = a;
            }
        }
        if (only != null && same) {
            List<String> assumed = new ArrayList<>();
            for (String a : args) {
                assumed.add(a == null ? only : a);
            }
            List<List<String>> taking = candidates.stream().filter(c -> coercible(assumed, c)).toList();
            if (taking.size() == 1) {
                return taking.get(0);
            }
        }
        throw new CoilgunException(SqlState.AMBIGUOUS_FUNCTION, "function " + call(name, args) + " is not unique",
                0);
    }

    private interface Score {
        int of(List<String> candidate);
    }

    private static List<List<String>> best(List<List<String>> candidates, Score score) {
        int max = candidates.stream().mapToInt(score::of).max().orElse(0);
        return max == 0 ? candidates : candidates.stream().filter(c -> score.of(c) == max).toList();
    }

    /** Whether each known argument is its candidate's type, converts to it implicitly, or the candidate takes any. */
    private static boolean coercible(List<String> args, List<String> types) {
        for (int i = 0; i < args.size(); i++) {
            String from = args.get(i);
            String to = types.get(i);
            if (from != null && !from.equals(to) && !polymorphic(to)
                    && !IMPLICIT.getOrDefault(from, Set.of()).contains(to)) {
                return false;
            }
        }
        return true;
    }

    /** Whether {@code type} is one of Postgres' pseudo-types a function takes any type as. */
    static boolean polymorphic(String type) {
        return type.equals("\"any\"") || type.startsWith("any");
    }

    private static char category(String type) {
        Character c = CATEGORY.get(type);
        return c != null ? c : type.endsWith("[]") ? 'A' : polymorphic(type) ? 'P' : 'U';
    }

    private static String elementOf(String arrayType) {
        return arrayType.endsWith("[]") ? arrayType.substring(0, arrayType.length() - 2)
                : arrayType.equals("anyarray") ? "anyelement" : arrayType;
    }

    /** {@code name(unknown, text)}, as Postgres names a call in its errors. */
    static String call(String name, List<String> args) {
        List<String> shown = new ArrayList<>();
        for (String a : args) {
            shown.add(a == null ? "unknown" : a);
        }
        return name.toLowerCase(Locale.ROOT) + "(" + String.join(", ", shown) + ")";
    }
}
