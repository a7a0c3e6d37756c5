package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The user data of Coilgun's group protocol, versioned.
 *
 * <p>Subscription (member to leader): what a unit is and holds: version, node, unit index, then each held task
 * (topic, partition, role, offset), then whether its node is draining (a byte, added later: absent means no). Assignment (leader to each member): version, the members (member id, node,
 * unit), then every task's placement (topic, partition, active member index or -1, replica member indexes), then
 * the nodes whose copies are awaited back (node, since, the tasks it held; added later: absent means none).
 *
 * <p>Upgrade rule: a version only adds fields at the end. A reader takes the fields it knows of any version at
 * least its own and ignores the rest; data of an older version than it can read counts as none (the unit holds
 * nothing, the view is empty until the next rebalance), which costs stickiness, never correctness.
 */
public final class AssignmentCodec {
    public static final int VERSION = 1;

    private AssignmentCodec() {
    }

    public static ByteBuffer encodeSubscription(String node, int unit, Map<TaskId, UnitInfo.Held> held) {
        return encodeSubscription(node, unit, held, false);
    }

    public static ByteBuffer encodeSubscription(String node, int unit, Map<TaskId, UnitInfo.Held> held,
            boolean draining) {
        Writer w = new Writer();
        w.i(VERSION).s(node).i(unit).i(held.size());
        held.forEach((t, h) -> w.s(t.topic()).i(t.partition()).b(h.role().ordinal()).l(h.offset()));
        w.b(draining ? 1 : 0);
        return w.done();
    }

    /** The unit behind a subscription, or null when its data is missing or unreadable. */
    public static UnitInfo decodeSubscription(String member, ByteBuffer data) {
        if (data == null) {
            return null;
        }
        try {
            ByteBuffer b = data.duplicate();
            if (b.getInt() < VERSION) {
                return null;
            }
            String node = str(b);
            int unit = b.getInt();
            int n = b.getInt();
            Map<TaskId, UnitInfo.Held> held = new HashMap<>();
            for (int i = 0; i < n; i++) {
                TaskId t = new TaskId(str(b), b.getInt());
                held.put(t, new UnitInfo.Held(TaskRole.values()[b.get()], b.getLong()));
            }
            boolean draining = b.hasRemaining() && b.get() != 0;
            return new UnitInfo(member, node, unit, held, draining);
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException e) {
            return null;
        }
    }

    public static ByteBuffer encodeAssignment(int generation, Map<String, ClusterView.Member> members,
            TaskPlacements placements) {
        return encodeAssignment(generation, members, placements, Map.of());
    }

    public static ByteBuffer encodeAssignment(int generation, Map<String, ClusterView.Member> members,
            TaskPlacements placements, Map<String, ClusterView.AwayNode> away) {
        Writer w = new Writer();
        List<String> ids = new ArrayList<>(members.keySet());
        Map<String, Integer> index = new HashMap<>();
        w.i(VERSION).i(generation).i(ids.size());
        for (String id : ids) {
            index.put(id, index.size());
            ClusterView.Member m = members.get(id);
            w.s(id).s(m.node()).i(m.unit());
        }
        w.i(placements.tasks().size());
        placements.tasks().forEach((t, c) -> {
            w.s(t.topic()).i(t.partition()).i(c.active() == null ? -1 : index.get(c.active())).i(c.replicas().size());
            c.replicas().forEach(r -> w.i(index.get(r)));
        });
        w.i(away.size());
        away.forEach((node, a) -> {
            w.s(node).l(a.sinceMillis()).i(a.tasks().size());
            a.tasks().forEach(t -> w.s(t.topic()).i(t.partition()));
        });
        return w.done();
    }

    /** The view an assignment carries, or {@link ClusterView#EMPTY} when it carries none it can read. */
    public static ClusterView decodeAssignment(ByteBuffer data) {
        if (data == null || !data.hasRemaining()) {
            return ClusterView.EMPTY;
        }
        try {
            ByteBuffer b = data.duplicate();
            if (b.getInt() < VERSION) {
                return ClusterView.EMPTY;
            }
            int generation = b.getInt();
            int n = b.getInt();
            List<String> ids = new ArrayList<>(n);
            Map<String, ClusterView.Member> members = new LinkedHashMap<>();
            for (int i = 0; i < n; i++) {
                String id = str(b);
                ids.add(id);
                members.put(id, new ClusterView.Member(str(b), b.getInt()));
            }
            int tasks = b.getInt();
            Map<TaskId, TaskPlacements.Copies> placed = new LinkedHashMap<>();
            for (int i = 0; i < tasks; i++) {
                TaskId t = new TaskId(str(b), b.getInt());
                int active = b.getInt();
                int r = b.getInt();
                List<String> replicas = new ArrayList<>(r);
                for (int j = 0; j < r; j++) {
                    replicas.add(ids.get(b.getInt()));
                }
                placed.put(t, new TaskPlacements.Copies(active < 0 ? null : ids.get(active), replicas));
            }
            Map<String, ClusterView.AwayNode> away = new HashMap<>();
            int awayNodes = b.hasRemaining() ? b.getInt() : 0;
            for (int i = 0; i < awayNodes; i++) {
                String node = str(b);
                long since = b.getLong();
                int k = b.getInt();
                Set<TaskId> held = new HashSet<>();
                for (int j = 0; j < k; j++) {
                    held.add(new TaskId(str(b), b.getInt()));
                }
                away.put(node, new ClusterView.AwayNode(since, held));
            }
            return new ClusterView(generation, members, new TaskPlacements(placed), away);
        } catch (BufferUnderflowException | IllegalArgumentException | IndexOutOfBoundsException e) {
            return ClusterView.EMPTY;
        }
    }

    private static String str(ByteBuffer b) {
        byte[] bytes = new byte[b.getShort() & 0xffff];
        b.get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** A growing buffer for the few kilobytes of a rebalance (not on the event path). */
    private static final class Writer {
        private ByteBuffer b = ByteBuffer.allocate(256);

        private void room(int n) {
            if (b.remaining() < n) {
                ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + n));
                b.flip();
                bigger.put(b);
                b = bigger;
            }
        }

        Writer i(int v) {
            room(4);
            b.putInt(v);
            return this;
        }

        Writer l(long v) {
            room(8);
            b.putLong(v);
            return this;
        }

        Writer b(int v) {
            room(1);
            b.put((byte) v);
            return this;
        }

        Writer s(String v) {
            byte[] bytes = v.getBytes(StandardCharsets.UTF_8);
            room(2 + bytes.length);
            b.putShort((short) bytes.length);
            b.put(bytes);
            return this;
        }

        ByteBuffer done() {
            b.flip();
            return b;
        }
    }
}
