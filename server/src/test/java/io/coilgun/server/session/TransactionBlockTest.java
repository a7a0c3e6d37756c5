package io.coilgun.server.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coilgun.pgwire.spi.PgException;
import io.coilgun.pgwire.spi.QueryResult;
import io.coilgun.sql.compile.SetStatement;
import io.coilgun.sql.compile.TransactionStatement;
import io.coilgun.sql.parser.SqlTransaction.Kind;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The transaction block's states and what each transaction statement does in each, as Postgres answers them. */
class TransactionBlockTest {
    int ends;
    final TransactionBlock block = new TransactionBlock();

    TransactionBlockTest() {
        block.onEnd(() -> ends++);
    }

    QueryResult run(Kind kind) {
        return block.run(new TransactionStatement(kind, null));
    }

    QueryResult run(Kind kind, String savepoint) {
        return block.run(new TransactionStatement(kind, savepoint));
    }

    static void fails(String state, Runnable statement) {
        assertEquals(state, assertThrows(PgException.class, statement::run).sqlState());
    }

    @Test
    void beginOpensABlockAndCommitEndsIt() {
        assertEquals(TransactionBlock.State.IDLE, block.state());
        assertEquals('I', block.status());
        assertNull(block.startedAt());

        QueryResult begin = run(Kind.BEGIN);
        assertEquals("BEGIN", begin.commandTag());
        assertEquals(List.of(), begin.notices());
        assertEquals('T', block.status());
        assertTrue(block.inBlock());
        assertNotNull(block.startedAt());

        QueryResult commit = run(Kind.COMMIT);
        assertEquals("COMMIT", commit.commandTag());
        assertEquals(List.of(), commit.notices());
        assertEquals('I', block.status());
        assertNull(block.startedAt());
        assertEquals(1, ends);
    }

    @Test
    void beginInABlockAndCommitOutsideOneWarn() {
        run(Kind.BEGIN);
        Long started = block.startedAt();
        QueryResult again = run(Kind.BEGIN);
        assertEquals("BEGIN", again.commandTag());
        assertEquals(List.of("there is already a transaction in progress"), again.notices());
        assertEquals(started, block.startedAt(), "a second BEGIN does not start the block again");
        run(Kind.ROLLBACK);

        QueryResult commit = run(Kind.COMMIT);
        assertEquals("COMMIT", commit.commandTag());
        assertEquals(List.of("there is no transaction in progress"), commit.notices());
        QueryResult rollback = run(Kind.ROLLBACK);
        assertEquals("ROLLBACK", rollback.commandTag());
        assertEquals(List.of("there is no transaction in progress"), rollback.notices());
        assertEquals('I', block.status());
        assertEquals(3, ends, "the block's end is told even when there was none (nothing can be open then)");
    }

    @Test
    void anErrorFailsAnOpenBlockOnly() {
        block.statementFailed();
        assertEquals('I', block.status(), "outside a block an error changes nothing");

        run(Kind.BEGIN);
        block.statementFailed();
        assertEquals(TransactionBlock.State.FAILED, block.state());
        assertEquals('E', block.status());
        assertTrue(block.inBlock());
        block.statementFailed();
        assertEquals('E', block.status());
    }

    @Test
    void aFailedBlockAdmitsOnlyWhatEndsTheFailure() {
        assertTrue(block.admits(null), "outside a failed block anything runs, even what did not compile");
        assertTrue(block.admits(new SetStatement("x", "1")));
        run(Kind.BEGIN);
        assertTrue(block.admits(new SetStatement("x", "1")));
        block.statementFailed();

        assertFalse(block.admits(null));
        assertFalse(block.admits(new SetStatement("x", "1")));
        assertFalse(block.admits(new TransactionStatement(Kind.BEGIN, null)));
        assertFalse(block.admits(new TransactionStatement(Kind.SAVEPOINT, "a")));
        assertFalse(block.admits(new TransactionStatement(Kind.RELEASE, "a")));
        assertTrue(block.admits(new TransactionStatement(Kind.COMMIT, null)));
        assertTrue(block.admits(new TransactionStatement(Kind.ROLLBACK, null)));
        assertTrue(block.admits(new TransactionStatement(Kind.ROLLBACK_TO, "a")));
        assertEquals("25P02", TransactionBlock.aborted().sqlState());
    }

    @Test
    void commitOfAFailedBlockRollsBack() {
        run(Kind.BEGIN);
        block.statementFailed();
        QueryResult commit = run(Kind.COMMIT);
        assertEquals("ROLLBACK", commit.commandTag());
        assertEquals('I', block.status());
        assertTrue(block.admits(new SetStatement("x", "1")));
    }

    @Test
    void savepointsNeedABlock() {
        fails("25P01", () -> run(Kind.SAVEPOINT, "a"));
        fails("25P01", () -> run(Kind.RELEASE, "a"));
        fails("25P01", () -> run(Kind.ROLLBACK_TO, "a"));
        fails("25P01", () -> block.require("DECLARE CURSOR"));
        run(Kind.BEGIN);
        block.require("DECLARE CURSOR");
    }

    @Test
    void rollbackToASavepointRecoversAFailedBlock() {
        run(Kind.BEGIN);
        assertEquals("SAVEPOINT", run(Kind.SAVEPOINT, "a").commandTag());
        block.statementFailed();
        QueryResult back = run(Kind.ROLLBACK_TO, "a");
        assertEquals("ROLLBACK", back.commandTag());
        assertEquals(1, back.notices().size(), "it warns that nothing was undone");
        assertEquals('T', block.status());
        assertEquals("ROLLBACK", run(Kind.ROLLBACK_TO, "a").commandTag(), "the savepoint stays after ROLLBACK TO");
    }

    @Test
    void releaseForgetsTheSavepointAndTheLaterOnes() {
        run(Kind.BEGIN);
        run(Kind.SAVEPOINT, "a");
        run(Kind.SAVEPOINT, "b");
        assertEquals("RELEASE", run(Kind.RELEASE, "a").commandTag());
        fails("3B001", () -> run(Kind.ROLLBACK_TO, "b"));
        fails("3B001", () -> run(Kind.RELEASE, "a"));
    }

    @Test
    void aRepeatedNameFindsTheNewestSavepoint() {
        run(Kind.BEGIN);
        run(Kind.SAVEPOINT, "a");
        run(Kind.SAVEPOINT, "b");
        run(Kind.SAVEPOINT, "a");
        run(Kind.RELEASE, "a"); // the newest a only
        run(Kind.ROLLBACK_TO, "b");
        run(Kind.ROLLBACK_TO, "a"); // the first a is still there; b goes
        fails("3B001", () -> run(Kind.RELEASE, "b"));
    }

    @Test
    void theEndOfABlockForgetsItsSavepoints() {
        run(Kind.BEGIN);
        run(Kind.SAVEPOINT, "a");
        run(Kind.COMMIT);
        run(Kind.BEGIN);
        fails("3B001", () -> run(Kind.ROLLBACK_TO, "a"));
        assertEquals('T', block.status());
    }
}
