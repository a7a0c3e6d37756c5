package io.coilgun.tests.bench;

/**
 * Sends one payment and waits for its per-event reply. One per injector worker: the worker has one event in flight
 * at a time.
 */
interface Sender extends AutoCloseable {
    void send(Payment p) throws Exception;

    @Override
    void close();
}
