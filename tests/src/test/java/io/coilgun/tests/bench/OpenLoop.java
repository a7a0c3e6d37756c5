package io.coilgun.tests.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * Open-loop injection at a fixed rate: event i is due at {@code start + i / rate} whatever happened to the events
 * before it, and its latency runs from that due time to its reply. A slow reply therefore delays the events queued
 * behind it and they count the wait (corrected for coordinated omission, as in the paper's injector and wrk2).
 * Workers, one per sender, each keep one event in flight. Events due during the warm-up are sent but not recorded.
 *
 * <p>It never hangs: when the schedule ends, workers get {@code timeoutS} seconds to finish; events still queued
 * then, and statements that fail or time out, count as errors.
 */
final class OpenLoop {
    /**
     * What one run measured. {@code perSecond}: t, sent, answered, p50/p99/p99.9 ms of that second, errors;
     * {@code seconds} the latencies recorded in each of those seconds (by answer time), for phases of a run;
     * {@code unanswered} every event of the run, warm-up included, that got no answer: its statement failed or timed
     * out, was still in flight at the end, or was never sent (still queued, or the queue full).
     */
    record Result(double targetRate, double achievedRate, Histogram latency, long errors, long sent,
            List<double[]> perSecond, String firstError, List<Histogram> seconds, List<Payment> unanswered) {
        double ms(double percentile) {
            return latency.getTotalCount() == 0 ? Double.NaN : latency.getValueAtPercentile(percentile) / 1e6;
        }

        double maxMs() {
            return latency.getTotalCount() == 0 ? Double.NaN : latency.getMaxValue() / 1e6;
        }
    }

    private record Due(Payment payment, long dueNanos) {
    }

    private OpenLoop() {
    }

    static Result run(String label, List<Sender> senders, PaymentSource source, double rate, double warmupS,
            double durationS, int timeoutS) throws InterruptedException {
        BlockingQueue<Due> queue = new ArrayBlockingQueue<>(Math.max(1024, (int) Math.min(5_000_000,
                rate * (warmupS + durationS) + 1)));
        Recorder recorder = new Recorder(TimeUnit.HOURS.toNanos(1), 3);
        Histogram total = new Histogram(TimeUnit.HOURS.toNanos(1), 3);
        AtomicLong answered = new AtomicLong(); // of the events due after the warm-up
        AtomicLong answeredAll = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        String[] firstError = {null};
        java.util.Set<Payment> unanswered = java.util.concurrent.ConcurrentHashMap.newKeySet();
        Payment[] inFlight = new Payment[senders.size()]; // each worker's, guarded by itself
        long start = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50);
        long measureFrom = start + (long) (warmupS * 1e9);
        long end = measureFrom + (long) (durationS * 1e9);
        List<Thread> workers = new ArrayList<>();
        for (int w = 0; w < senders.size(); w++) {
            Sender sender = senders.get(w);
            int worker = w;
            Thread t = new Thread(() -> {
                while (true) {
                    Due due;
                    try {
                        due = queue.poll(100, TimeUnit.MILLISECONDS);
                    } catch (InterruptedException e) {
                        return;
                    }
                    if (due == null) {
                        if (System.nanoTime() > end && queue.isEmpty()) {
                            return;
                        }
                        continue;
                    }
                    synchronized (inFlight) {
                        inFlight[worker] = due.payment();
                    }
                    try {
                        sender.send(due.payment());
                        synchronized (inFlight) {
                            inFlight[worker] = null;
                        }
                        long latency = System.nanoTime() - due.dueNanos();
                        answeredAll.incrementAndGet();
                        if (due.dueNanos() >= measureFrom) {
                            recorder.recordValue(Math.min(latency, TimeUnit.HOURS.toNanos(1)));
                            answered.incrementAndGet();
                        }
                    } catch (Exception e) {
                        unanswered.add(due.payment());
                        synchronized (inFlight) {
                            inFlight[worker] = null;
                        }
                        if (Thread.currentThread().isInterrupted()) {
                            return;
                        }
                        if (due.dueNanos() >= measureFrom) {
                            errors.incrementAndGet();
                        }
                        synchronized (firstError) {
                            if (firstError[0] == null) {
                                firstError[0] = e.toString();
                            }
                        }
                    }
                }
            }, "bench-worker-" + w);
            t.setDaemon(true);
            workers.add(t);
            t.start();
        }

        List<double[]> perSecond = new ArrayList<>();
        List<Histogram> seconds = new ArrayList<>();
        long sent = 0;
        long sentMeasured = 0;
        long nextReport = start + 1_000_000_000L;
        long lastAnswered = 0;
        long lastErrors = 0;
        Histogram interval = null;
        long period = (long) (1e9 / rate);
        double nextDue = start;
        for (long i = 0; ; i++) {
            long due = (long) nextDue;
            if (due >= end) {
                break;
            }
            long now;
            while ((now = System.nanoTime()) < due) {
                if (now >= nextReport) {
                    break;
                }
                LockSupport.parkNanos(Math.min(due - now, period));
            }
            if (now >= nextReport) {
                interval = recorder.getIntervalHistogram(interval);
                total.add(interval);
                seconds.add(interval.copy());
                long a = answeredAll.get();
                long e = errors.get();
                double t = (nextReport - start) / 1e9;
                double[] row = {t, sent, a - lastAnswered, ms(interval, 50), ms(interval, 99), ms(interval, 99.9),
                    e - lastErrors};
                perSecond.add(row);
                System.out.printf(Locale.ROOT, "%s: %4.0fs sent %d, %.0f events/s, answered %d, p99 %s ms%s%s%n",
                        label, t, sent, (a - lastAnswered) * 1.0, a, fmt(row[4]), e > 0 ? ", errors " + e : "",
                        due < measureFrom ? " (warm-up)" : "");
                lastAnswered = a;
                lastErrors = e;
                nextReport += 1_000_000_000L;
                i--; // this event is still to send
                continue;
            }
            // The warm-up ramps the rate from a tenth of it up to it, so that a fresh JVM compiles its hot paths
            // before the full rate; its backlog would otherwise spill into the measured part.
            double elapsed = due - start;
            double r = due < measureFrom ? rate * (0.1 + 0.9 * elapsed / (measureFrom - start)) : rate;
            nextDue += 1e9 / r;
            Payment p = source.next(System.currentTimeMillis() * 1000);
            if (p == null) {
                break;
            }
            if (!queue.offer(new Due(p, due))) {
                unanswered.add(p);
                if (due >= measureFrom) {
                    errors.incrementAndGet(); // the injector itself is saturated: never silently skip
                }
            }
            sent++;
            if (due >= measureFrom) {
                sentMeasured++;
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(timeoutS);
        for (Thread t : workers) {
            t.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
        }
        long stranded = queue.size();
        List<Due> left = new ArrayList<>();
        queue.drainTo(left);
        left.forEach(d -> unanswered.add(d.payment()));
        for (Thread t : workers) {
            t.interrupt();
        }
        for (Thread t : workers) {
            t.join(5_000);
        }
        synchronized (inFlight) { // still in a statement: unanswered too
            for (Payment p : inFlight) {
                if (p != null) {
                    unanswered.add(p);
                }
            }
        }
        errors.addAndGet(stranded);
        interval = recorder.getIntervalHistogram(interval);
        total.add(interval);
        double achieved = answered.get() / durationS;
        return new Result(rate, achieved, total, errors.get(), sentMeasured, perSecond,
                stranded > 0 ? stranded + " events still queued after the " + timeoutS + " s grace period"
                        + (firstError[0] == null ? "" : "; first error: " + firstError[0]) : firstError[0], seconds,
                unanswered.stream().sorted(java.util.Comparator.comparingLong(Payment::id)).toList());
    }

    private static double ms(Histogram h, double percentile) {
        return h.getTotalCount() == 0 ? Double.NaN : h.getValueAtPercentile(percentile) / 1e6;
    }

    static String fmt(double ms) {
        return Double.isNaN(ms) ? "-" : String.format(Locale.ROOT, ms < 10 ? "%.2f" : "%.1f", ms);
    }
}
