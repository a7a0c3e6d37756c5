package io.coilgun.sql.parser;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;
import org.junit.jupiter.api.Test;

/**
 * Guards the one non-delta part of src/main/codegen/config.fmpp: the copy of Calcite's non-reserved
 * keyword list (minus RETURNING), plus Coilgun's words and the words Postgres does not reserve. Fails when a
 * Calcite upgrade changes Calcite's list.
 */
class KeywordsTest {
    private static final Set<String> ADDED =
        Set.of("COPY", "DELAYED", "IF", "INFINITE", "METRIC", "MILLISECONDS", "SLIDING", "STDIN", "STDOUT",
            "REPLAY", "SUBSCRIBE", "TUMBLING", "KAFKA", "SINK", "TOPIC");
    private static final Set<String> RESERVED_BY_COILGUN = Set.of("RETURNING");

    private static final SqlAbstractParserImpl.Metadata METADATA =
        CoilgunSqlParserImpl.FACTORY.getParser(new StringReader("")).getMetadata();

    @Test
    void nonReservedKeywordsAreCalcitesMinusReturningPlusOurs() throws IOException {
        Set<String> names = new TreeSet<>(calciteDefaultNonReservedKeywords());
        names.removeAll(RESERVED_BY_COILGUN);
        names.addAll(ADDED);
        names.addAll(postgresNames());
        // Metadata speaks of token images ("MORE"), the config of token names ("MORE_").
        Set<String> expected = new TreeSet<>();
        for (String name : names) {
            expected.add(image(name));
        }

        Set<String> actual = new TreeSet<>();
        for (String token : METADATA.getTokens()) {
            if (METADATA.isNonReservedKeyword(token)) {
                actual.add(token);
            }
        }
        assertEquals(expected, actual,
            "update nonReservedKeywords in src/main/codegen/config.fmpp from calcite-core's default_config.fmpp");
    }

    @Test
    void reservedAndNonReserved() {
        assertTrue(METADATA.isKeyword("RETURNING"));
        assertFalse(METADATA.isNonReservedKeyword("RETURNING"));
        assertFalse(METADATA.isNonReservedKeyword("STREAM"));
        for (String keyword : ADDED) {
            assertTrue(METADATA.isKeyword(keyword), keyword);
            assertTrue(METADATA.isNonReservedKeyword(keyword), keyword);
        }
    }

    /** The words Postgres does not reserve that are Calcite keywords: names here too (see PostgresKeywordsTest). */
    private static Set<String> postgresNames() throws IOException {
        Set<String> words = new TreeSet<>();
        for (String[] k : PostgresKeywordsTest.postgresKeywords()) {
            String word = k[0].toUpperCase(java.util.Locale.ROOT);
            if ((k[1].equals("U") || k[1].equals("C")) && METADATA.isKeyword(word)
                    && !KeywordNames.WORDS.contains(word)) {
                words.add(word);
            }
        }
        return words;
    }

    private static String image(String tokenName) {
        try {
            int kind = CoilgunSqlParserImplConstants.class.getField(tokenName).getInt(null);
            String image = CoilgunSqlParserImplConstants.tokenImage[kind];
            return image.substring(1, image.length() - 1);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError("no token " + tokenName + " in the generated parser", e);
        }
    }

    private static Set<String> calciteDefaultNonReservedKeywords() throws IOException {
        String config;
        try (InputStream in = SqlAbstractParserImpl.class.getClassLoader()
            .getResourceAsStream("codegen/default_config.fmpp")) {
            assertNotNull(in, "calcite-core's codegen/default_config.fmpp");
            config = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        Matcher block = Pattern.compile("(?m)^  nonReservedKeywords: \\[(.*?)^  \\]", Pattern.DOTALL).matcher(config);
        assertTrue(block.find());
        Set<String> keywords = new TreeSet<>();
        Matcher word = Pattern.compile("\"([A-Z0-9_]+)\"").matcher(block.group(1));
        while (word.find()) {
            keywords.add(word.group(1));
        }
        assertTrue(keywords.size() > 300, "parsed " + keywords.size() + " keywords");
        return keywords;
    }
}
