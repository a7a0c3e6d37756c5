package io.coilgun.tests.bench;

/** Where the injected payments come from: the generator, or a CSV file of real events. */
interface PaymentSource {
    /** The next payment to send at wall-clock time {@code nowMicros}, or null when the source is exhausted. */
    Payment next(long nowMicros);

    static PaymentSource of(PaymentGenerator generator) {
        return generator::next;
    }
}
