package io.coilgun.tests;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.ResourceLock;

/**
 * A test class whose nodes and brokers are processes of their own ({@link ClusterProcesses}, a child JVM): it runs in
 * a lane of its own, beside the classes that run a node in the test JVM (those run one after another, JUnit's default
 * here), and never beside another class of this lane (a cluster's seven JVMs fit this machine once, not twice). The
 * two lanes share nothing but the machine: the in-process node's statics stay the one node's, and the processes
 * bind their own ports and directories. See the failsafe configuration in tests/pom.xml.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("own-processes")
@interface OwnProcesses {
}
