package io.coilgun.tests;

import io.coilgun.server.boot.ClassDataSharing;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The command line of a node or a broker the tests start as a process of its own: this JVM's jars (not the test
 * classes: nodes run the server's code only) and the class-data sharing archive of them, made once per build under
 * target/ (about half a minute, in the background; then each node starts about 2 s sooner and each broker 2.5 s
 * sooner, which a cluster test does tens of times). {@code COILGUN_IT_CDS=off} starts them without it, to compare.
 */
public final class NodeJvm {
    private static final String JARS = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
            .filter(e -> e.endsWith(".jar") && Files.isRegularFile(Path.of(e)))
            // not this module's own jar, rebuilt by every run (the archive would be made again each time)
            .filter(e -> !Path.of(e).toAbsolutePath().startsWith(Path.of("target").toAbsolutePath()))
            .collect(Collectors.joining(File.pathSeparator));
    private static List<String> sharing;
    private static Thread dumping;
    /**
     * What scripts/coilgun gives a node and a broker besides heap and archive: the JIT compiler's threads behind live
     * work (nice 10). Benchmarks use it (they measure what a user runs); tests do not (C1 only, compiled at once).
     */
    public static final List<String> JIT_BEHIND_LIVE_WORK = List.of("-XX:ThreadPriorityPolicy=1",
            "-XX:CompilerThreadPriority=10");
    /** What scripts/coilgun also gives a node: its heap in transparent huge pages where the kernel offers them. */
    public static final List<String> HUGE_PAGES = hugePages();

    private NodeJvm() {
    }

    private static List<String> hugePages() {
        try {
            String thp = Files.readString(Path.of("/sys/kernel/mm/transparent_hugepage/enabled"));
            return thp.contains("[madvise]") || thp.contains("[always]") ? List.of("-XX:+UseTransparentHugePages")
                    : List.of();
        } catch (java.io.IOException e) {
            return List.of();
        }
    }

    /** {@code java <jvm> <archive options> -cp <jars> io.coilgun.server.boot.Main <args>}. */
    public static List<String> command(List<String> jvm, String... args) {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvm);
        cmd.addAll(sharing());
        cmd.add("-cp");
        cmd.add(JARS);
        cmd.add("io.coilgun.server.boot.Main");
        cmd.addAll(List.of(args));
        return cmd;
    }

    /**
     * Waits until the archive is made (a benchmark: its processes start with it, and no dump competes with their
     * warm-up for the cores).
     */
    public static void awaitSharing() throws InterruptedException {
        Thread t;
        synchronized (NodeJvm.class) {
            sharing();
            t = dumping;
        }
        if (t != null) {
            t.join();
        }
    }

    /**
     * The archive's options once it is made; none until then. The first process asks for it to be made, in the
     * background: the processes started meanwhile (a cluster test's first brokers and nodes) go without it rather
     * than wait half a minute for it.
     */
    private static synchronized List<String> sharing() {
        if (sharing == null && "off".equals(System.getenv("COILGUN_IT_CDS"))) {
            sharing = List.of();
        }
        if (sharing != null) {
            return sharing;
        }
        if (dumping == null) {
            dumping = new Thread(() -> {
                List<String> options = ClassDataSharing.jvmOptions(ClassDataSharing.archive(
                        Path.of("target", "coilgun-it.jsa").toAbsolutePath(), JARS));
                synchronized (NodeJvm.class) {
                    sharing = options;
                }
            }, "class-data-sharing-dump");
            dumping.setDaemon(true);
            dumping.start();
        }
        return List.of();
    }
}
