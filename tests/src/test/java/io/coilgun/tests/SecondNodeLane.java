package io.coilgun.tests;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class of an in-process node (or of one node in a process of its own, which is as light) that runs in a
 * second lane of such tests, one class at a time, beside the
 * default lane (the classes without a lane annotation, one after another) and the {@link OwnProcesses} lane. Its node
 * shares the test JVM with the default lane's node: nodes keep no JVM-wide state but budgets (RocksDB's block cache
 * and write buffers, the group tables' memory) and the recent errors a status page lists, which no test checks. The classes here mostly wait (subscriptions,
 * restarts, DDL round trips) and assert no tight timing: the tests with one (statement timeouts, a failed event
 * answered within seconds) stay in the default lane.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("second-node-lane")
@interface SecondNodeLane {
}
