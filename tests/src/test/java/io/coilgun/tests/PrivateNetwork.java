package io.coilgun.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A private network for a cluster test (root only): a bridge in the host's namespace with an address of a random
 * 10.213.x.0/24, and one network namespace per member (the brokers, each node), joined to the bridge by a veth pair
 * with an address of its own. The test's clients reach the members from the bridge's address (.1). Faults are real:
 * a member's link goes down (cut off from everyone), or a blackhole route in a namespace drops what it sends to one
 * address (cut off from the brokers, or from one peer, while its clients still reach it). Nothing leaves the bridge;
 * {@link #close} (also a shutdown hook) deletes the namespaces, the links and the bridge.
 */
public final class PrivateNetwork implements AutoCloseable {
    private final String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x1000, 0x10000));
    private final String prefix = "10.213." + ThreadLocalRandom.current().nextInt(1, 250) + ".";
    private final String bridge = "cgbr" + tag;
    /** Member name -> its last address byte. */
    private final Map<String, Integer> members = new LinkedHashMap<>();
    private final Thread cleanup = new Thread(this::deleteAll, "private-network-cleanup");

    public PrivateNetwork() throws IOException, InterruptedException {
        Runtime.getRuntime().addShutdownHook(cleanup);
        run("ip", "link", "add", bridge, "type", "bridge");
        run("ip", "addr", "add", prefix + "1/24", "dev", bridge);
        run("ip", "link", "set", bridge, "up");
    }

    /** Whether this machine lets a test make namespaces (root, iproute2). */
    public static boolean available() {
        try {
            String ns = "cgprobe" + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x10000));
            run("ip", "netns", "add", ns);
            run("ip", "netns", "del", ns);
            return true;
        } catch (Exception e) {
            return false;
        }
    }

    /** Adds member {@code name} (its namespace, link and address); returns its address. */
    String add(String name) throws IOException, InterruptedException {
        int host = 2 + members.size();
        members.put(name, host);
        String ns = namespace(name);
        String outside = "cgh" + tag + host;
        String inside = "cgn" + tag + host;
        run("ip", "netns", "add", ns);
        run("ip", "link", "add", outside, "type", "veth", "peer", "name", inside);
        run("ip", "link", "set", inside, "netns", ns);
        run("ip", "link", "set", outside, "master", bridge);
        run("ip", "link", "set", outside, "up");
        run("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up");
        run("ip", "netns", "exec", ns, "ip", "addr", "add", address(name) + "/24", "dev", inside);
        run("ip", "netns", "exec", ns, "ip", "link", "set", inside, "up");
        return address(name);
    }

    String address(String name) {
        return prefix + members.get(name);
    }

    /** The address the test's own connections come from. */
    String testAddress() {
        return prefix + "1";
    }

    /** {@code command}, run inside member {@code name}'s namespace. */
    List<String> inside(String name, List<String> command) {
        List<String> out = new ArrayList<>(List.of("ip", "netns", "exec", namespace(name)));
        out.addAll(command);
        return out;
    }

    /** Member {@code name}'s link goes down: it reaches no one and no one reaches it. */
    public void isolate(String name) throws IOException, InterruptedException {
        run("ip", "netns", "exec", namespace(name), "ip", "link", "set", "cgn" + tag + members.get(name), "down");
    }

    /** Its link up again (and its address's route with it). */
    public void reconnect(String name) throws IOException, InterruptedException {
        String inside = "cgn" + tag + members.get(name);
        run("ip", "netns", "exec", namespace(name), "ip", "link", "set", inside, "up");
    }

    /** What {@code a} and {@code b} send each other is dropped (a blackhole route on each side). */
    void cut(String a, String b) throws IOException, InterruptedException {
        run("ip", "netns", "exec", namespace(a), "ip", "route", "add", "blackhole", address(b) + "/32");
        run("ip", "netns", "exec", namespace(b), "ip", "route", "add", "blackhole", address(a) + "/32");
    }

    void heal(String a, String b) throws IOException, InterruptedException {
        run("ip", "netns", "exec", namespace(a), "ip", "route", "del", "blackhole", address(b) + "/32");
        run("ip", "netns", "exec", namespace(b), "ip", "route", "del", "blackhole", address(a) + "/32");
    }

    private String namespace(String name) {
        return "cg" + tag + name;
    }

    @Override
    public void close() {
        deleteAll();
        try {
            Runtime.getRuntime().removeShutdownHook(cleanup);
        } catch (IllegalStateException e) {
            // shutting down: the hook runs anyway
        }
    }

    private synchronized void deleteAll() {
        for (String name : members.keySet()) {
            quietly("ip", "netns", "del", namespace(name)); // its veth pair goes with it
        }
        members.clear();
        quietly("ip", "link", "del", bridge);
    }

    private static void quietly(String... command) {
        try {
            run(command);
        } catch (Exception e) {
            // gone already
        }
    }

    private static void run(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", command) + ": no answer in 30 s");
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (p.exitValue() != 0) {
            throw new IOException(String.join(" ", command) + ": " + out);
        }
    }
}
