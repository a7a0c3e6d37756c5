package io.coilgun.planner.agg;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Size;

/** {@link ExactSum} is the correctly rounded exact sum, whatever the order of additions and removals. */
class ExactSumTest {
    @Property(tries = 300)
    void correctlyRoundedInAnyOrder(@ForAll @Size(max = 60) List<@DoubleRange(min = -1e12, max = 1e12) Double> values,
            @ForAll long seed) {
        BigDecimal exact = BigDecimal.ZERO;
        for (double v : values) {
            exact = exact.add(new BigDecimal(v));
        }
        double expected = Double.parseDouble(exact.toPlainString()); // correctly rounded, ties to even

        ByteBuffer a = ByteBuffer.allocate(ExactSum.BYTES);
        for (double v : values) {
            ExactSum.add(a, 0, v);
        }
        assertEquals(expected, ExactSum.value(a, 0), 0.0);

        // another order, with extra values that come and go
        Random rnd = new Random(seed);
        List<Double> shuffled = new ArrayList<>(values);
        Collections.shuffle(shuffled, rnd);
        ByteBuffer b = ByteBuffer.allocate(ExactSum.BYTES);
        List<Double> transient_ = new ArrayList<>();
        for (double v : shuffled) {
            double noise = (rnd.nextDouble() - 0.5) * Math.pow(10, rnd.nextInt(30) - 10);
            ExactSum.add(b, 0, noise);
            transient_.add(noise);
            ExactSum.add(b, 0, v);
        }
        Collections.shuffle(transient_, rnd);
        for (double noise : transient_) {
            ExactSum.remove(b, 0, noise);
        }
        assertEquals(Double.doubleToLongBits(ExactSum.value(a, 0)), Double.doubleToLongBits(ExactSum.value(b, 0)),
                "bit for bit");
    }

    @Property(tries = 100)
    void cancellationLeavesNothing(@ForAll @Size(min = 1, max = 40) List<@DoubleRange(min = -1e9, max = 1e9) Double> v) {
        ByteBuffer s = ByteBuffer.allocate(ExactSum.BYTES);
        for (double x : v) {
            ExactSum.add(s, 0, x);
        }
        ExactSum.add(s, 0, 0.1);
        for (double x : v) {
            ExactSum.remove(s, 0, x);
        }
        assertEquals(0.1, ExactSum.value(s, 0), 0.0);
    }

    /**
     * The compact form (two partials, widened to the full form when a value does not fit, as a group's slot is) gives
     * the same value and double-double, bit for bit, as the full form, through additions and removals in any order;
     * and sums of amounts in cents stay compact.
     */
    @Property(tries = 300)
    void compactFormIsTheSameSum(@ForAll @Size(max = 80) List<@DoubleRange(min = -1e6, max = 1e6) Double> values,
            @ForAll boolean cents, @ForAll long seed) {
        Random rnd = new Random(seed);
        ByteBuffer full = ByteBuffer.allocate(ExactSum.BYTES);
        ByteBuffer compact = ByteBuffer.allocate(ExactSum.COMPACT_BYTES);
        ByteBuffer widened = null;
        BigDecimal exact = BigDecimal.ZERO;
        List<Double> in = new ArrayList<>();
        int widenings = 0;
        for (double raw : values) {
            double v = cents ? Math.round(raw * 100) / 100.0 : raw * Math.pow(10, rnd.nextInt(20) - 10);
            boolean remove = !in.isEmpty() && rnd.nextInt(3) == 0;
            double x = remove ? in.remove(rnd.nextInt(in.size())) : v;
            if (!remove) {
                in.add(x);
            }
            exact = remove ? exact.subtract(new BigDecimal(x)) : exact.add(new BigDecimal(x));
            if (remove) {
                ExactSum.remove(full, 0, x);
            } else {
                ExactSum.add(full, 0, x);
            }
            if (widened == null && !ExactSum.addCompact(compact, 0, remove ? -x : x)) {
                widened = ByteBuffer.allocate(ExactSum.BYTES);
                ExactSum.widen(compact, 0, widened, 0);
                widenings++;
                if (remove) {
                    ExactSum.remove(widened, 0, x);
                } else {
                    ExactSum.add(widened, 0, x);
                }
            } else if (widened != null) {
                if (remove) {
                    ExactSum.remove(widened, 0, x);
                } else {
                    ExactSum.add(widened, 0, x);
                }
            }
            ByteBuffer mine = widened;
            if (mine == null) {
                mine = ByteBuffer.allocate(ExactSum.BYTES);
                ExactSum.widen(compact, 0, mine, 0);
            }
            double expected = Double.parseDouble(exact.toPlainString());
            assertEquals(expected, ExactSum.value(mine, 0), 0.0);
            double[] a = ExactSum.doubleDouble(full, 0);
            double[] b = ExactSum.doubleDouble(mine, 0);
            assertEquals(Double.doubleToLongBits(a[0]), Double.doubleToLongBits(b[0]), "hi");
            assertEquals(Double.doubleToLongBits(a[1]), Double.doubleToLongBits(b[1]), "lo");
            if (widened != null && ExactSum.narrow(widened, 0, compact, 0)) {
                widened = null; // back to compact, as a commit narrows a group's state that fits again
            }
        }
        if (cents) {
            assertEquals(0, widenings, "a sum of amounts in cents needed more than two partials");
        }
    }
}
