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
 * a lane of its own, beside the two lanes of classes that run a node in the test JVM (the default lane, one class
 * after another, and {@link SecondNodeLane}), and never beside another class of this lane (a cluster's seven JVMs fit
 * this machine once, not twice). The processes bind their own ports and directories. See the failsafe configuration
 * in tests/pom.xml.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Execution(ExecutionMode.CONCURRENT)
@ResourceLock("own-processes")
@interface OwnProcesses {
}
