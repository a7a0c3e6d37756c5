package io.coilgun.tests;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class whose brokers and nodes are processes in network namespaces of their own ({@link PrivateNetwork}):
 * no address or port of theirs is shared with any other test, and the class mostly waits (for a lease, a cut-off,
 * a broker's fencing), so it runs in a lane of its own beside the {@link OwnProcesses} lane rather than after it
 * (its five JVMs beside the other lane's seven fit this machine's memory). See the failsafe configuration in
 * tests/pom.xml.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("private-network")
@interface PrivateNetworkLane {
}
