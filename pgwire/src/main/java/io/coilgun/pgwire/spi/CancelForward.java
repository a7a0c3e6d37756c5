package io.coilgun.pgwire.spi;

/**
 * Where a CancelRequest for a process id of another server goes (the other nodes of a cluster, which a load balancer
 * in front of them may have made the client skip); called without waiting for it, as Postgres answers none.
 */
@FunctionalInterface
public interface CancelForward {
    void cancel(int processId, int secretKey);
}
