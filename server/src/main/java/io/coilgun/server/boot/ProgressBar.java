package io.coilgun.server.boot;

import io.coilgun.cluster.Progress;
import java.io.PrintStream;
import java.util.Locale;

/** The command line's progress bars: {@code [#########.....................] 30%}. */
final class ProgressBar {
    private static final int CELLS = 30;

    private ProgressBar() {
    }

    static String of(long done, long total) {
        int full = total <= 0 ? CELLS : (int) Math.min(CELLS, Math.max(0, done) * CELLS / total);
        long pct = total <= 0 ? 100 : Math.min(100, Math.max(0, done) * 100 / total);
        return "[" + "#".repeat(full) + ".".repeat(CELLS - full) + "] " + pct + "%";
    }

    /** What {@code coilgun start} prints of its start-up replay and its drain: one line a second while they last. */
    static Progress printingTo(PrintStream out) {
        return (operation, done, total) -> {
            String what = Progress.DRAIN.equals(operation) ? "tasks handed over" : "records";
            out.println(String.format(Locale.ROOT, "coilgun: %s %s %,d / %,d %s", operation, of(done, total), done,
                    total, what));
            out.flush();
        };
    }
}
