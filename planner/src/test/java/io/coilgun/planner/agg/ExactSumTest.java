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
}
