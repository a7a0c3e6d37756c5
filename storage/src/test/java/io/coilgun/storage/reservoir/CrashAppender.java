package io.coilgun.storage.reservoir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The child JVM of {@link ReservoirCrashTest}: opens the reservoir at its last checkpoint and appends forever,
 * checkpointing now and then the way a task does (the checkpoint file stands in for the state store's atomic
 * commit), until it is killed.
 */
public final class CrashAppender {
    static final ReservoirConfig CONFIG = new ReservoirConfig(100, 2_000, 1_000, 64 * 1024);

    private CrashAppender() {
    }

    /** Event {@code seq}'s time: rising, every 7th one 60 behind (out of order, within the lateness of 100). */
    static long time(long seq) {
        return 1_000 + seq * 10 - (seq % 7 == 0 ? 60 : 0);
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        Path ckpt = dir.resolve("checkpoint");
        ReservoirIO io = new ReservoirIO(1, 1);
        byte[] saved = Files.exists(ckpt) ? Files.readAllBytes(ckpt) : null;
        Reservoir r = Reservoir.open(dir.resolve("reservoir"), CONFIG, io, new ChunkCache(4, 1 << 20), saved);
        long seq = r.lastSeq() + 1;
        System.out.println("started at " + seq);
        System.out.flush();
        while (true) {
            r.append(time(seq), seq, 1, ReservoirModelTest.payload(seq, (int) (seq % 50)));
            if (seq % 37 == 0) {
                byte[] blob = r.checkpoint();
                Path tmp = dir.resolve("checkpoint.tmp");
                Files.write(tmp, blob);
                Files.move(tmp, ckpt, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                r.committed();
            }
            if (seq % 1000 == 0) {
                System.out.println("appended " + seq);
                System.out.flush();
            }
            seq++;
        }
    }
}
