package io.coilgun.planner.expr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SqlFunctionsTest {
    @Test
    void textComparesInTheCCollationByCodePoints() {
        // UTF-16 order would put the emoji (a surrogate pair, U+1F600) before U+E000 and U+FFFD
        List<String> sorted = new ArrayList<>(List.of("\uD83D\uDE00", "\uFFFD", "\uE000", "é", "z", "B", "a", "", "ab"));
        sorted.sort(SqlFunctions::compareText);
        assertEquals(List.of("", "B", "a", "ab", "z", "é", "\uE000", "\uFFFD", "\uD83D\uDE00"), sorted);
        assertEquals(0, SqlFunctions.compareText("\uD83D\uDE00x", "\uD83D\uDE00x"));
        assertTrue(SqlFunctions.compareText("\uD83D\uDE00", "\uD83D\uDE01") < 0);
    }

    @Test
    void numbersCompareExactlyAcrossIntegersAndNumerics() {
        assertTrue(SqlFunctions.compareNumbers(new BigDecimal("9223372036854775808"), Long.MAX_VALUE) > 0);
        assertEquals(0, SqlFunctions.compareNumbers(7, 7L));
        assertTrue(SqlFunctions.compareNumbers(1.5, 1L) > 0);
    }
}
