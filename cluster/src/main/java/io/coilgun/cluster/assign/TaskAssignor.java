package io.coilgun.cluster.assign;

import io.coilgun.cluster.task.TaskId;
import io.coilgun.cluster.task.TaskRole;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Places every task's copies (one active, the rest hot replicas) on the processor units of the group: the
 * paper's assignment (railgun §3.3), sticky. Pure logic, deterministic for the same input. One class on purpose:
 * its passes (keep, promote, place, balance, warm up) read and change one run's placement and budgets, in an order
 * the invariants below depend on; apart, they would share all of that state.
 *
 * <p>Two invariants always hold: a task never has two copies on one physical node (a node's crash costs a task at
 * most one copy), and no unit takes more than its budget, {@code ceil(actives / units)} active copies and
 * {@code ceil(copies / units)} copies in all, unless the first invariant leaves no other choice. Within them, the
 * preferences, in order: a copy stays where it was; a task that lost its active is led by a unit holding its replica
 * (a change of role, no recovery; over that unit's budget, warming a copy up where there is room, rather than opened
 * cold elsewhere), else by one holding its data stale (the shortest replay), else by the least loaded unit; replicas
 * go first to units holding the task's data, then to the least loaded.
 *
 * <p>A task asks for {@code copies} copies (the stream's {@code replicas}); it gets at most one per node.
 *
 * <p><b>Replica first.</b> An active that balance would move (a node joined: its unit is over budget) moves only to
 * a copy that is caught up ({@link #ACCEPTABLE_LAG} records or less behind it), as a change of role. While there is
 * none, the active stays where it is, over budget (an active whose node drains: a caught-up replica leads it over
 * its budget when no replica's unit has room). Either way the unit that would take it gets a <i>warm-up</i> replica,
 * one more copy than the task asks for when a node is free for it ({@link TaskPlacements#warmingUp()}); the group
 * leader rebalances again a few seconds later ({@link CoilgunAssignor}) and the active moves once a copy with room
 * has caught up. So the task keeps answering from a running, caught-up copy the whole time. The same when its
 * caught-up replicas' units have no room and the unit with room holds no running copy (a node that joined or came
 * back with stale data): it stays rather than be opened cold there. A unit below its floor of actives takes one over
 * from a caught-up replica it runs, a change of role ({@code fillActiveFloors}).
 *
 * <p><b>Awaited copies.</b> A task whose copy is awaited back from a node that left or drains a moment ago
 * ({@link ReplicaRestore}) gets no new replica in its place yet.
 *
 * <p><b>Draining.</b> The units of a node that is stopping ({@link UnitInfo#draining()}) take no copy and count for no
 * budget; their actives move the same way, replica first, and the node leaves once it leads nothing.
 */
public final class TaskAssignor {
    private TaskAssignor() {
    }

    /** How far behind the active a copy may be and still take over from it (records). */
    public static final long ACCEPTABLE_LAG = 1000;

    /** @param copies the copies each task asks for (1 = no replica) */
    public static TaskPlacements assign(List<UnitInfo> units, Map<TaskId, Integer> copies) {
        return assign(units, copies, Map.of());
    }

    /**
     * @param awaited per task, the copies awaited back from a node that left or drains ({@link ReplicaRestore}): no
     *     new replica is made in their place yet
     */
    public static TaskPlacements assign(List<UnitInfo> units, Map<TaskId, Integer> copies,
            Map<TaskId, Integer> awaited) {
        return new Run(units, copies, awaited).run();
    }

    private static final Comparator<TaskId> TASK_ORDER =
            Comparator.comparing(TaskId::topic).thenComparingInt(TaskId::partition);

    /**
     * A unit's share of {@code total} things over {@code units}: at most {@code ceil(total / units)}, and only
     * {@code total mod units} units may have that many, so when every unit has its share the rest have
     * {@code floor(total / units)}: a new unit is filled up to the floor by taking copies from the others.
     */
    private static final class Quota {
        final int floor;
        final int ceil;
        final int extra;
        final Map<String, Integer> load = new HashMap<>();
        int atCeil;

        Quota(int total, int units) {
            this.floor = total / units;
            this.extra = total % units;
            this.ceil = extra == 0 ? floor : floor + 1;
        }

        int load(String m) {
            return load.getOrDefault(m, 0);
        }

        boolean fits(String m) {
            int l = load(m);
            return l < floor || l < ceil && atCeil < extra;
        }

        void add(String m, int d) {
            int before = load(m);
            int after = before + d;
            load.put(m, after);
            if (before < ceil && after >= ceil) {
                atCeil++;
            } else if (before >= ceil && after < ceil) {
                atCeil--;
            }
        }
    }

    private static final class Run {
        final List<UnitInfo> units;
        final List<TaskId> tasks;
        final Map<TaskId, Integer> wanted = new HashMap<>();
        final Map<String, UnitInfo> byMember = new HashMap<>();
        final Quota actives;
        final Quota copies;
        final Map<TaskId, String> active = new HashMap<>();
        final Map<TaskId, List<String>> replicas = new HashMap<>();
        final Map<TaskId, Set<String>> nodesWithCopy = new HashMap<>();
        /** Tasks whose active stays over budget until the warm-up copy placed for it has caught up. */
        final Set<TaskId> warmingUp = new HashSet<>();

        final Map<TaskId, Integer> awaited;

        Run(List<UnitInfo> units, Map<TaskId, Integer> asked, Map<TaskId, Integer> awaited) {
            this.awaited = awaited;
            this.units = new ArrayList<>(units);
            this.units.sort(Comparator.comparing(UnitInfo::node).thenComparingInt(UnitInfo::unit)
                    .thenComparing(UnitInfo::member));
            this.tasks = new ArrayList<>(asked.keySet());
            this.tasks.sort(TASK_ORDER);
            long nodes = units.stream().filter(u -> !u.draining()).map(UnitInfo::node).distinct().count();
            int total = 0;
            for (TaskId t : tasks) {
                int w = (int) Math.max(1, Math.min(asked.get(t), nodes));
                wanted.put(t, w);
                total += w;
                replicas.put(t, new ArrayList<>());
                nodesWithCopy.put(t, new HashSet<>());
            }
            for (UnitInfo u : this.units) {
                byMember.put(u.member(), u);
            }
            int n = Math.max(1, (int) units.stream().filter(u -> !u.draining()).count());
            this.actives = new Quota(tasks.size(), n);
            this.copies = new Quota(total, n);
        }

        TaskPlacements run() {
            Map<TaskId, TaskPlacements.Copies> out = new LinkedHashMap<>();
            if (units.isEmpty()) {
                return new TaskPlacements(out);
            }
            keepActives();
            keepReplicas();
            for (TaskId t : tasks) {
                if (active.get(t) == null) {
                    chooseActive(t);
                }
            }
            for (TaskId t : tasks) {
                fillReplicas(t);
            }
            fillActiveFloors();
            for (TaskId t : warmingUp) {
                placeWarmUp(t);
            }
            for (TaskId t : tasks) {
                List<String> r = new ArrayList<>(replicas.get(t));
                r.sort(Comparator.naturalOrder());
                out.put(t, new TaskPlacements.Copies(active.get(t), r));
            }
            return new TaskPlacements(out, warmingUp);
        }

        /** Holders of {@code t} in {@code role}, the most advanced copy first. */
        List<UnitInfo> holders(TaskId t, TaskRole role) {
            List<UnitInfo> out = new ArrayList<>();
            for (UnitInfo u : units) {
                UnitInfo.Held h = u.held(t);
                if (h != null && (role == null || h.role() == role)) {
                    out.add(u);
                }
            }
            out.sort(Comparator.comparingLong((UnitInfo u) -> -u.held(t).offset()));
            return out;
        }

        boolean fitsActive(String m) {
            return !draining(m) && actives.fits(m) && copies.fits(m);
        }

        boolean fitsCopy(String m) {
            return !draining(m) && copies.fits(m);
        }

        boolean draining(String m) {
            return byMember.get(m).draining();
        }

        boolean nodeFree(TaskId t, String m) {
            return !nodesWithCopy.get(t).contains(byMember.get(m).node());
        }

        void placeActive(TaskId t, String m) {
            active.put(t, m);
            nodesWithCopy.get(t).add(byMember.get(m).node());
            actives.add(m, 1);
            copies.add(m, 1);
        }

        void placeReplica(TaskId t, String m) {
            replicas.get(t).add(m);
            nodesWithCopy.get(t).add(byMember.get(m).node());
            copies.add(m, 1);
        }

        void keepActives() {
            for (TaskId t : tasks) {
                for (UnitInfo u : holders(t, TaskRole.ACTIVE)) {
                    if (!nodeFree(t, u.member())) {
                        continue;
                    }
                    if (fitsActive(u.member())) {
                        placeActive(t, u.member());
                        break;
                    }
                    if (!caughtUpElsewhere(t, u)) {
                        placeActive(t, u.member()); // over budget until a copy elsewhere can take over
                        warmingUp.add(t);
                        break;
                    }
                }
            }
        }

        /** Whether a unit of another node holds a replica of {@code t} at most ACCEPTABLE_LAG behind {@code leader}. */
        boolean caughtUpElsewhere(TaskId t, UnitInfo leader) {
            long at = leader.held(t).offset();
            for (UnitInfo u : holders(t, TaskRole.REPLICA)) {
                if (!u.draining() && !u.node().equals(leader.node()) && u.held(t).offset() >= at - ACCEPTABLE_LAG) {
                    return true;
                }
            }
            return false;
        }

        /**
         * One more copy of a task whose active stays over budget, on the unit that would lead it: one already
         * warming it up (it holds the task's data) first, else the least loaded unit with room. None when every
         * node has a copy already: one of those replicas catches up and takes the active over.
         */
        void placeWarmUp(TaskId t) {
            String m = pick(t, true);
            if (m == null) {
                m = pick(t, false);
            }
            if (m != null) {
                placeReplica(t, m);
            }
        }

        void keepReplicas() {
            for (TaskId t : tasks) {
                for (UnitInfo u : holders(t, TaskRole.REPLICA)) {
                    if (u.draining()) {
                        continue;
                    }
                    // room is left for the active when the task has none yet: a replica may be promoted
                    int room = wanted.get(t) - 1 - replicas.get(t).size() + (active.get(t) == null ? 1 : 0);
                    if (room > 0 && fitsCopy(u.member()) && nodeFree(t, u.member())) {
                        placeReplica(t, u.member());
                    }
                }
            }
        }

        void chooseActive(TaskId t) {
            // a hot replica takes over: a change of role, its data is current
            String promote = null;
            for (String m : replicas.get(t)) {
                if (actives.fits(m)
                        && (promote == null || actives.load(m) < actives.load(promote))) {
                    promote = m;
                }
            }
            if (promote == null && !replicas.get(t).isEmpty() && !anyFits(t) && !draining(replicas.get(t).get(0))) {
                promote = replicas.get(t).get(0); // no unit has room: a replica leads over its budget
                warmingUp.add(t); // for now: the next probe places it again
            }
            if (promote == null) {
                // Replica first, for an active whose node stops or died, when its replicas' units have no room: a
                // hot replica leads over its budget rather than a unit with room that would open the task and catch
                // up (replay it all, answering nothing meanwhile); that unit gets a warm-up copy, and the active moves
                // on once a copy with room caught up.
                for (String m : replicas.get(t)) {
                    if (!draining(m) && (promote == null || actives.load(m) < actives.load(promote))) {
                        promote = m;
                    }
                }
                if (promote != null) {
                    warmingUp.add(t);
                }
            }
            if (promote != null) {
                replicas.get(t).remove(promote);
                actives.add(promote, 1);
                active.put(t, promote);
                return;
            }
            String m = pick(t, true);
            UnitInfo leader = runningLeader(t);
            if (m != null && leader != null && !holdsRunningCopy(t, m)) {
                // Replica first: its caught-up replicas have no room, and the unit with room would open the task
                // and catch up while leading it. The active stays, over budget; that unit gets a warm-up copy.
                m = leader.member();
                warmingUp.add(t);
            }
            if (m == null) {
                m = makeRoom(t, true);
            }
            if (m == null) {
                m = pickIgnoringBudget(t, true);
            }
            if (m != null) {
                placeActive(t, m);
            }
            // replicas kept in case one would lead: the task has its active now, so only wanted - 1 stay
            List<String> kept = replicas.get(t);
            while (kept.size() > wanted.get(t) - 1) {
                String dropped = kept.remove(kept.size() - 1);
                copies.add(dropped, -1);
                nodesWithCopy.get(t).remove(byMember.get(dropped).node());
            }
        }

        /**
         * A unit below its floor of actives takes one over from a unit above it, where it runs a caught-up replica of
         * that task (a change of role): what a warm-up copy placed for it earlier was for.
         */
        void fillActiveFloors() {
            for (UnitInfo u : units) {
                String m = u.member();
                for (TaskId t : tasks) {
                    if (u.draining() || actives.load(m) >= actives.floor) {
                        break;
                    }
                    String a = active.get(t);
                    UnitInfo.Held h = u.held(t);
                    if (a == null || !replicas.get(t).contains(m) || h == null || h.role() != TaskRole.REPLICA
                            || actives.load(a) <= actives.floor) {
                        continue;
                    }
                    UnitInfo.Held led = byMember.get(a).held(t);
                    if (led != null && h.offset() < led.offset() - ACCEPTABLE_LAG) {
                        continue;
                    }
                    replicas.get(t).remove(m);
                    replicas.get(t).add(a);
                    active.put(t, m);
                    actives.add(m, 1);
                    actives.add(a, -1);
                    warmingUp.remove(t);
                }
            }
        }

        /** The live, not draining unit leading {@code t} now, when its node may still hold a copy; else null. */
        UnitInfo runningLeader(TaskId t) {
            for (UnitInfo u : holders(t, TaskRole.ACTIVE)) {
                if (!u.draining() && nodeFree(t, u.member())) {
                    return u;
                }
            }
            return null;
        }

        /** Whether unit {@code m} runs a copy of {@code t} now (active or replica: no open, no catch-up). */
        boolean holdsRunningCopy(TaskId t, String m) {
            UnitInfo.Held h = byMember.get(m).held(t);
            return h != null && h.role() != TaskRole.STALE;
        }

        boolean anyFits(TaskId t) {
            for (UnitInfo u : units) {
                if (fitsActive(u.member()) && nodeFree(t, u.member())) {
                    return true;
                }
            }
            return false;
        }

        void fillReplicas(TaskId t) {
            while (replicas.get(t).size() < wanted.get(t) - 1 - awaited.getOrDefault(t, 0)) {
                String m = pick(t, false);
                if (m == null) {
                    m = makeRoom(t, false);
                }
                if (m == null) {
                    m = pickIgnoringBudget(t, false);
                }
                if (m == null) {
                    return; // every node already has a copy
                }
                placeReplica(t, m);
            }
        }

        /** A unit for a new copy of {@code t} within budget: one holding its data first, else the least loaded. */
        String pick(TaskId t, boolean asActive) {
            for (UnitInfo u : holders(t, null)) {
                String m = u.member();
                if ((asActive ? fitsActive(m) : fitsCopy(m)) && nodeFree(t, m) && !holdsCopy(t, m)) {
                    return m;
                }
            }
            String best = null;
            for (UnitInfo u : units) {
                String m = u.member();
                if ((asActive ? fitsActive(m) : fitsCopy(m)) && nodeFree(t, m)
                        && (best == null || lessLoaded(m, best, asActive))) {
                    best = m;
                }
            }
            return best;
        }

        /**
         * When every unit that may take a copy of {@code t} (its node has none) is at its budget: frees one of them by
         * moving one of its replicas to a unit with room (a copy moves, as it would have to anyway), or, for an
         * active, by handing one of its actives to that task's replica (a change of role). Returns the freed unit.
         */
        String makeRoom(TaskId t, boolean asActive) {
            for (UnitInfo x : units) {
                String m = x.member();
                if (!nodeFree(t, m) || x.draining()) {
                    continue;
                }
                if (!copies.fits(m) && !moveAReplicaAway(m)) {
                    continue;
                }
                if (asActive && !actives.fits(m) && !handAnActiveAway(m)) {
                    continue;
                }
                if (asActive ? fitsActive(m) : fitsCopy(m)) {
                    return m;
                }
            }
            return null;
        }

        boolean moveAReplicaAway(String x) {
            for (TaskId s : tasks) {
                if (!replicas.get(s).contains(x)) {
                    continue;
                }
                for (UnitInfo y : units) {
                    String m = y.member();
                    if (fitsCopy(m) && nodeFree(s, m)) {
                        replicas.get(s).remove(x);
                        nodesWithCopy.get(s).remove(byMember.get(x).node());
                        copies.add(x, -1);
                        placeReplica(s, m);
                        return true;
                    }
                }
            }
            return false;
        }

        boolean handAnActiveAway(String x) {
            for (TaskId s : tasks) {
                if (!x.equals(active.get(s))) {
                    continue;
                }
                for (String r : replicas.get(s)) {
                    if (actives.fits(r) && !draining(r)) {
                        replicas.get(s).remove(r);
                        replicas.get(s).add(x);
                        active.put(s, r);
                        actives.add(r, 1);
                        actives.add(x, -1);
                        return true;
                    }
                }
            }
            return false;
        }

        String pickIgnoringBudget(TaskId t, boolean asActive) {
            String best = null;
            for (UnitInfo u : units) {
                String m = u.member();
                if (!u.draining() && nodeFree(t, m) && (best == null || lessLoaded(m, best, asActive))) {
                    best = m;
                }
            }
            return best;
        }

        boolean holdsCopy(TaskId t, String m) {
            return m.equals(active.get(t)) || replicas.get(t).contains(m);
        }

        boolean lessLoaded(String a, String b, boolean asActive) {
            if (asActive && actives.load(a) != actives.load(b)) {
                return actives.load(a) < actives.load(b);
            }
            return copies.load(a) < copies.load(b);
        }
    }
}
