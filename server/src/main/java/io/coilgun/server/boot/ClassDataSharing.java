package io.coilgun.server.boot;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine;

/**
 * An application class-data sharing archive (JDK AppCDS) of the classes a node and a broker load as they start: the
 * JVM maps them from the archive instead of reading, parsing and verifying them from the jars. A node is ready in
 * about 3.5 s instead of 5.8 s and a broker in 2.5 s instead of 5 s on this project's 2-core machine, which is what
 * a restart or a failover waits for (docs/operations.md).
 *
 * <p>The archive is dumped from {@code cds/coilgun-classes.lst} (a resource: the classes a node and a broker loaded,
 * written by {@code -XX:DumpLoadedClassList}; classes it names that are gone are skipped) for one class path of jars
 * only (the JVM refuses directories), and is used by JVMs whose class path starts with that one. The JVM checks that
 * the jars did not change; a stale archive is simply not used, and {@link #archive} dumps it again when a jar is newer.
 */
public final class ClassDataSharing {
    /** The class list in the server jar. */
    static final String CLASS_LIST = "/cds/coilgun-classes.lst";

    private ClassDataSharing() {
    }

    /** {@code coilgun cds --archive <path>}: makes the archive for this JVM's class path (what scripts/coilgun runs). */
    @CommandLine.Command(name = "cds", hidden = true)
    static final class Command implements Callable<Integer> {
        @CommandLine.Option(names = "--archive", required = true)
        Path archive;

        @Override
        public Integer call() {
            Optional<Path> made = archive(archive, System.getProperty("java.class.path"));
            System.out.println(made.map(a -> "coilgun: class-data sharing archive " + a)
                    .orElse("coilgun: no class-data sharing archive (see " + archive + ".log)"));
            return made.isPresent() ? 0 : 1;
        }
    }

    /**
     * The archive at {@code archive} for {@code classPath}, dumped first when it is missing or older than a jar of
     * the class path (a few tens of seconds, once); empty when the class path holds a directory or the dump failed.
     * Several processes may ask at once: one dumps, the others wait for it.
     */
    public static Optional<Path> archive(Path archive, String classPath) {
        List<Path> entries = new ArrayList<>();
        for (String e : classPath.split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                entries.add(Path.of(e));
            }
        }
        if (entries.isEmpty() || entries.stream().anyMatch(Files::isDirectory)) {
            return Optional.empty();
        }
        try {
            Files.createDirectories(archive.toAbsolutePath().getParent());
            Path lock = archive.resolveSibling(archive.getFileName() + ".lock");
            try (FileChannel ch = FileChannel.open(lock, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                    FileLock held = ch.lock()) {
                if (current(archive, classPath, entries)) {
                    return Optional.of(archive);
                }
                return dump(archive, classPath) ? Optional.of(archive) : Optional.empty();
            }
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The JVM options that use {@code archive} (and go on without it if the JVM cannot). */
    public static List<String> jvmOptions(Optional<Path> archive) {
        return archive.map(a -> List.of("-XX:SharedArchiveFile=" + a.toAbsolutePath(), "-Xshare:auto"))
                .orElse(List.of());
    }

    /**
     * The {@code -XX:} options (the archive's among them) this JVM was started with, for the JVMs it starts on the
     * same class path: {@code coilgun kafka}'s brokers run with what {@code JAVA_OPTS} gave it, but the heap.
     */
    static List<String> inheritedOptions() {
        List<String> out = new ArrayList<>();
        for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
            if (arg.startsWith("-XX:") || arg.startsWith("-Xshare:")) {
                out.add(arg);
            }
        }
        return out;
    }

    private static boolean current(Path archive, String classPath, List<Path> entries) throws IOException {
        Path madeFor = classPathFile(archive);
        if (!Files.exists(archive) || !Files.exists(madeFor) || !Files.readString(madeFor).equals(classPath)) {
            return false; // the JVM takes an archive only for the class path it was made for (or a longer one)
        }
        FileTime made = Files.getLastModifiedTime(archive);
        for (Path jar : entries) {
            if (Files.exists(jar) && Files.getLastModifiedTime(jar).compareTo(made) > 0) {
                return false;
            }
        }
        return true;
    }

    private static boolean dump(Path archive, String classPath) throws IOException, InterruptedException {
        Path list = archive.resolveSibling(archive.getFileName() + ".classes");
        try (InputStream in = ClassDataSharing.class.getResourceAsStream(CLASS_LIST)) {
            if (in == null) {
                return false;
            }
            Files.copy(in, list, StandardCopyOption.REPLACE_EXISTING);
        }
        Path tmp = archive.resolveSibling(archive.getFileName() + ".tmp");
        Files.deleteIfExists(tmp);
        Path log = archive.resolveSibling(archive.getFileName() + ".log");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xshare:dump", "-XX:SharedClassListFile=" + list, "-XX:SharedArchiveFile=" + tmp, "-cp", classPath)
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!p.waitFor(5, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            return false;
        }
        if (p.exitValue() != 0 || !Files.exists(tmp)) {
            return false;
        }
        Files.move(tmp, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Files.writeString(classPathFile(archive), classPath);
        return true;
    }

    private static Path classPathFile(Path archive) {
        return archive.resolveSibling(archive.getFileName() + ".classpath");
    }
}
