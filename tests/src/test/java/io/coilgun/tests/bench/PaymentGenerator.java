package io.coilgun.tests.bench;

import java.util.SplittableRandom;

/**
 * Fraud-like payments, deterministic for a seed: card and merchant drawn with Zipf-like skew (rank k with
 * probability about 1/k, by inverting the continuous approximation of the CDF), amounts with a heavy tail (log-normal,
 * median about 25, a few in the thousands), and an optional fraction of events whose time lags by up to a bound
 * (out of order, within the stream's lateness).
 */
final class PaymentGenerator {
    private final SplittableRandom rnd;
    private final int cards;
    private final int merchants;
    private final double outOfOrderFraction;
    private final long outOfOrderMicros;
    private long nextId;

    PaymentGenerator(long seed, int cards, int merchants, double outOfOrderFraction, long outOfOrderMicros,
            long firstId) {
        this.rnd = new SplittableRandom(seed);
        this.cards = cards;
        this.merchants = merchants;
        this.outOfOrderFraction = outOfOrderFraction;
        this.outOfOrderMicros = outOfOrderMicros;
        this.nextId = firstId;
    }

    /** The next payment, at event time {@code nowMicros} (or somewhat before it when it is out of order). */
    Payment next(long nowMicros) {
        long t = nowMicros;
        if (outOfOrderFraction > 0 && rnd.nextDouble() < outOfOrderFraction) {
            t -= (long) (rnd.nextDouble() * outOfOrderMicros);
        }
        double amount = Math.min(100_000, Math.round(Math.exp(3.2 + 1.1 * gaussian()) * 100) / 100.0);
        return new Payment(nextId++, t, "c" + zipf(cards), "m" + zipf(merchants), amount);
    }

    /** A rank in [0, n): rank k about 1/(k+1) as likely as rank 0. */
    private int zipf(int n) {
        double k = Math.exp(rnd.nextDouble() * Math.log(n + 1.0)) - 1;
        return (int) Math.min(n - 1, Math.max(0, k));
    }

    private double gaussian() {
        // Box-Muller; one of the pair is enough here
        double u = 1 - rnd.nextDouble();
        double v = rnd.nextDouble();
        return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
    }
}
