package io.coilgun.tests.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * A small line chart written as SVG, enough for the benchmark plots: evenly spaced x positions with labels (rates,
 * window sizes, percentiles) and one or more series on a linear y axis starting at 0.
 */
final class SvgChart {
    private static final String[] COLORS = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b"};
    private static final int W = 760;
    private static final int H = 420;
    private static final int LEFT = 70;
    private static final int RIGHT = 170;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;

    private final String title;
    private final String xTitle;
    private final String yTitle;
    private final List<String> xLabels;
    private final List<String> names = new ArrayList<>();
    private final List<double[]> series = new ArrayList<>();
    private Double yLimit;
    private final List<Integer> markersAt = new ArrayList<>();
    private final List<String> markerLabels = new ArrayList<>();

    SvgChart(String title, String xTitle, String yTitle, List<String> xLabels) {
        this.title = title;
        this.xTitle = xTitle;
        this.yTitle = yTitle;
        this.xLabels = xLabels;
    }

    /** A series: one y value per x label (NaN: no point). */
    SvgChart series(String name, double[] ys) {
        names.add(name);
        series.add(ys);
        return this;
    }

    /** A dashed horizontal line, e.g. a target. */
    SvgChart limit(double y) {
        this.yLimit = y;
        return this;
    }

    /** A dashed vertical line at x position {@code index}, labelled (e.g. a kill); several may be added. */
    SvgChart marker(int index, String label) {
        markersAt.add(index);
        markerLabels.add(label);
        return this;
    }

    void write(Path file) throws IOException {
        double max = yLimit == null ? 0 : yLimit;
        for (double[] s : series) {
            for (double y : s) {
                if (!Double.isNaN(y) && !Double.isInfinite(y)) {
                    max = Math.max(max, y);
                }
            }
        }
        max = niceCeiling(max <= 0 ? 1 : max * 1.05);
        int plotW = W - LEFT - RIGHT;
        int plotH = H - TOP - BOTTOM;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                W, H));
        text(svg, W / 2.0, 22, "middle", 15, title);
        text(svg, LEFT + plotW / 2.0, H - 12, "middle", 12, xTitle);
        svg.append(String.format(Locale.ROOT, "<text x=\"16\" y=\"%d\" transform=\"rotate(-90 16 %d)\" "
                + "text-anchor=\"middle\">%s</text>%n", TOP + plotH / 2, TOP + plotH / 2, esc(yTitle)));
        for (int i = 0; i <= 5; i++) {
            double v = max * i / 5;
            double y = TOP + plotH - plotH * (v / max);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>%n",
                    LEFT, y, LEFT + plotW, y));
            text(svg, LEFT - 6, y + 4, "end", 11, trim(v));
        }
        int n = xLabels.size();
        for (int i = 0; i < n; i++) {
            text(svg, x(i, n, plotW), TOP + plotH + 18, "middle", 11, xLabels.get(i));
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#333\"/>%n", LEFT, TOP, plotW, plotH));
        if (yLimit != null) {
            double y = TOP + plotH - plotH * (yLimit / max);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#888\" "
                    + "stroke-dasharray=\"6 4\"/>%n", LEFT, y, LEFT + plotW, y));
            text(svg, LEFT + plotW + 4, y + 4, "start", 11, "target " + trim(yLimit));
        }
        for (int m = 0; m < markersAt.size(); m++) {
            int at = markersAt.get(m);
            if (at < 0 || at >= n) {
                continue;
            }
            double mx = x(at, n, plotW);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#c00\" "
                    + "stroke-dasharray=\"4 3\"/>%n", mx, TOP, mx, TOP + plotH));
            text(svg, mx + 4, TOP + 12 + 14 * m, "start", 11, markerLabels.get(m));
        }
        for (int s = 0; s < series.size(); s++) {
            String color = COLORS[s % COLORS.length];
            StringBuilder points = new StringBuilder();
            double[] ys = series.get(s);
            for (int i = 0; i < Math.min(n, ys.length); i++) {
                if (Double.isNaN(ys[i])) {
                    continue;
                }
                double x = x(i, n, plotW);
                double y = TOP + plotH - plotH * (Math.min(ys[i], max) / max);
                points.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y,
                        color));
            }
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" "
                    + "stroke-width=\"2\"/>%n", points.toString().trim(), color));
            int ly = TOP + 14 + 18 * s;
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\"/>%n", LEFT + plotW + 12, ly - 4, LEFT + plotW + 30, ly - 4, color));
            text(svg, LEFT + plotW + 34, ly, "start", 11, names.get(s));
        }
        svg.append("</svg>\n");
        Files.createDirectories(file.getParent());
        Files.writeString(file, svg);
    }

    private static double x(int i, int n, int plotW) {
        return LEFT + (n == 1 ? plotW / 2.0 : 20 + (plotW - 40) * i / (double) (n - 1));
    }

    private static void text(StringBuilder svg, double x, double y, String anchor, int size, String s) {
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%d\">%s"
                + "</text>%n", x, y, anchor, size, esc(s)));
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }

    private static String trim(double v) {
        return v == Math.rint(v) ? String.valueOf((long) v) : String.format(Locale.ROOT, "%.2f", v);
    }

    private static double niceCeiling(double v) {
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v) {
                return m * p;
            }
        }
        return 10 * p;
    }
}
