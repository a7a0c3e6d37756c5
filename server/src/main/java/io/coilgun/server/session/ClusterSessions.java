package io.coilgun.server.session;

import io.coilgun.cluster.ClusterNode;
import io.coilgun.cluster.peer.PeerLink;
import io.coilgun.sql.query.SessionActivity;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The other nodes' client sessions, asked for through their peer inboxes (Kafka): each node answers {@code
 * sessions} with its own and {@code cancel-backend} by canceling a session of its own. A node that does not answer
 * within {@value #TIMEOUT_MS} ms is left out of the list (it is gone, or cut off).
 */
public final class ClusterSessions implements SessionRegistry.Elsewhere {
    static final long TIMEOUT_MS = 2_000;
    /** The longest statement text sent for another node's pg_stat_activity (Postgres' track_activity_query_size). */
    static final int QUERY_CHARS = 1024;
    private static final String SESSIONS = "sessions";
    private static final String CANCEL = "cancel-backend";
    /** A CancelRequest another node received for a process id it does not have: (process id, secret key). */
    private static final String CANCEL_REQUEST = "cancel-request";

    private final ClusterNode cluster;

    private ClusterSessions(ClusterNode cluster) {
        this.cluster = cluster;
    }

    /** What a CancelRequest forwarded by another node cancels here: whether it found its connection. */
    public interface CancelRequests {
        boolean cancelHere(int processId, int secretKey);
    }

    /**
     * Answers the other nodes' calls for {@code registry}'s sessions and for the CancelRequests they got for this
     * node's connections ({@code here}), and finds theirs for it.
     */
    public static ClusterSessions serve(ClusterNode cluster, SessionRegistry registry, CancelRequests here) {
        PeerLink peers = cluster.peers();
        peers.onCall(SESSIONS, request -> CompletableFuture.completedFuture(encode(registry.here())));
        peers.onCall(CANCEL, request -> CompletableFuture.completedFuture(
                new byte[] {(byte) (registry.cancelHere(ByteBuffer.wrap(request).getInt()) ? 1 : 0)}));
        peers.onCall(CANCEL_REQUEST, request -> {
            ByteBuffer b = ByteBuffer.wrap(request);
            return CompletableFuture.completedFuture(new byte[] {(byte) (here.cancelHere(b.getInt(), b.getInt())
                    ? 1 : 0)});
        });
        ClusterSessions sessions = new ClusterSessions(cluster);
        registry.elsewhere(sessions);
        return sessions;
    }

    /**
     * A CancelRequest this node got for a process id it does not have (a load balancer sent it here): to every
     * other node, each of which checks the secret as its own; not waited for, as Postgres answers none.
     */
    public void forwardCancelRequest(int processId, int secretKey) {
        byte[] request = ByteBuffer.allocate(8).putInt(processId).putInt(secretKey).array();
        for (String node : cluster.otherNodes()) {
            cluster.peers().call(node, CANCEL_REQUEST, request, TIMEOUT_MS);
        }
    }

    @Override
    public List<SessionActivity> sessions() {
        List<String> nodes = cluster.otherNodes();
        List<CompletableFuture<byte[]>> answers = new ArrayList<>(nodes.size());
        for (String node : nodes) {
            answers.add(cluster.peers().call(node, SESSIONS, new byte[0], TIMEOUT_MS));
        }
        List<SessionActivity> out = new ArrayList<>();
        for (int i = 0; i < nodes.size(); i++) {
            byte[] answer = await(answers.get(i));
            if (answer != null) {
                out.addAll(decode(answer, nodes.get(i)));
            }
        }
        return out;
    }

    @Override
    public boolean cancel(int pid) {
        List<CompletableFuture<byte[]>> answers = new ArrayList<>();
        byte[] request = ByteBuffer.allocate(4).putInt(pid).array();
        for (String node : cluster.otherNodes()) {
            answers.add(cluster.peers().call(node, CANCEL, request, TIMEOUT_MS));
        }
        boolean canceled = false;
        for (CompletableFuture<byte[]> a : answers) {
            byte[] answer = await(a);
            canceled |= answer != null && answer.length == 1 && answer[0] == 1;
        }
        return canceled;
    }

    private static byte[] await(CompletableFuture<byte[]> answer) {
        try {
            return answer.get(TIMEOUT_MS + 500, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        } catch (ExecutionException | TimeoutException e) {
            return null; // that node is left out
        }
    }

    static byte[] encode(List<SessionActivity> sessions) {
        try {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(bytes);
            out.writeInt(sessions.size());
            for (SessionActivity s : sessions) {
                out.writeInt(s.pid());
                text(out, s.user());
                text(out, s.database());
                text(out, s.applicationName());
                text(out, s.clientAddr());
                out.writeInt(s.clientPort() == null ? -1 : s.clientPort());
                out.writeLong(s.backendStart());
                time(out, s.xactStart());
                time(out, s.queryStart());
                time(out, s.stateChange());
                text(out, s.state());
                String q = s.query();
                text(out, q != null && q.length() > QUERY_CHARS ? q.substring(0, QUERY_CHARS) : q);
            }
            return bytes.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<SessionActivity> decode(byte[] bytes, String node) {
        try {
            DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes));
            int n = in.readInt();
            List<SessionActivity> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int pid = in.readInt();
                String user = text(in);
                String database = text(in);
                String app = text(in);
                String addr = text(in);
                int port = in.readInt();
                long backendStart = in.readLong();
                Long xact = time(in);
                Long queryStart = time(in);
                Long stateChange = time(in);
                String state = text(in);
                String query = text(in);
                out.add(new SessionActivity(pid, user, database, app, addr, port < 0 ? null : port, backendStart,
                        xact, queryStart, stateChange, state, query, node));
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void text(DataOutputStream out, String s) throws IOException {
        out.writeBoolean(s != null);
        if (s != null) {
            byte[] b = s.getBytes(StandardCharsets.UTF_8);
            out.writeInt(b.length);
            out.write(b);
        }
    }

    private static String text(DataInputStream in) throws IOException {
        if (!in.readBoolean()) {
            return null;
        }
        byte[] b = new byte[in.readInt()];
        in.readFully(b);
        return new String(b, StandardCharsets.UTF_8);
    }

    private static void time(DataOutputStream out, Long t) throws IOException {
        out.writeBoolean(t != null);
        if (t != null) {
            out.writeLong(t);
        }
    }

    private static Long time(DataInputStream in) throws IOException {
        return in.readBoolean() ? in.readLong() : null;
    }
}
