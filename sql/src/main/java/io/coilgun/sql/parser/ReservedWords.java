package io.coilgun.sql.parser;

import java.io.StringReader;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.calcite.sql.parser.SqlAbstractParserImpl;

/** The words Coilgun's parser reserves (a name only when quoted), as its generated grammar lists them. */
final class ReservedWords {
    private static final Set<String> RESERVED = load();

    private ReservedWords() {
    }

    /** Whether {@code upperCaseWord} is reserved by the parser. */
    static boolean isReserved(String upperCaseWord) {
        return RESERVED.contains(upperCaseWord);
    }

    private static Set<String> load() {
        SqlAbstractParserImpl.Metadata m = CoilgunSqlParserImpl.FACTORY.getParser(new StringReader(""))
                .getMetadata();
        return m.getTokens().stream()
                .filter(t -> m.isKeyword(t) && !m.isNonReservedKeyword(t) && t.matches("[A-Z_][A-Z0-9_]*"))
                .collect(Collectors.toUnmodifiableSet());
    }
}
