package io.ringbase.bench;

import java.awt.Color;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramIterationValue;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.XYStyler;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * The report's PNG plots, drawn with XChart: latency by percentile (x axis {@code 1/(1-p)} on a log scale,
 * labelled 90%, 99%, ... as the HdrHistogram plotter draws it) and throughput with p99 per second over the run.
 */
public final class Plots {

    private static final int WIDTH = 1000;
    private static final int HEIGHT = 560;

    private Plots() {}

    /**
     * Writes the latency-by-percentile plot of {@code latencyUs} (microseconds, shown in ms) to {@code png}.
     *
     * @throws IOException if the file cannot be written
     */
    public static void latencyByPercentile(Histogram latencyUs, String title, Path png) throws IOException {
        List<Double> x = new ArrayList<>();
        List<Double> y = new ArrayList<>();
        for (HistogramIterationValue v : latencyUs.percentiles(5)) {
            double p = v.getPercentileLevelIteratedTo() / 100.0;
            if (p >= 1.0) {
                break;
            }
            x.add(1.0 / (1.0 - p));
            y.add(v.getValueIteratedTo() / 1000.0);
        }
        // the maximum sits at the resolution of the run: p = 1 - 1/N, so x = N
        double n = Math.max(10, latencyUs.getTotalCount());
        x.add(Math.max(n, x.isEmpty() ? n : x.getLast()));
        y.add(latencyUs.getMaxValue() / 1000.0);
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle(
                        "percentile, as 1/(1-p): 10 = 90%, 100 = 99%, 1,000 = 99.9%, 10,000 = 99.99%, 100,000 = 99.999%")
                .yAxisTitle("latency (ms)")
                .build();
        XYStyler st = chart.getStyler();
        // (XChart 3.8 drops the log scale when a tick label function is set, and can loop on it: numbers it is)
        st.setXAxisLogarithmic(true);
        st.setXAxisMin(1.0);
        st.setXAxisMax(Math.pow(10, Math.ceil(Math.log10(x.getLast()))));
        st.setXAxisDecimalPattern("#,###");
        st.setLegendVisible(false);
        st.setChartBackgroundColor(Color.WHITE);
        XYSeries s = chart.addSeries("latency", x, y);
        s.setMarker(SeriesMarkers.NONE);
        s.setLineColor(new Color(31, 119, 180));
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }

    /**
     * Writes answered requests per second and the p99 of each second (ms, right axis) to {@code png}.
     *
     * @param perSecondUs one histogram per second of the run (microseconds)
     * @throws IOException if the file cannot be written
     */
    public static void throughputAndP99(Histogram[] perSecondUs, double targetRate, String title, Path png)
            throws IOException {
        List<Double> t = new ArrayList<>();
        List<Double> rps = new ArrayList<>();
        List<Double> p99 = new ArrayList<>();
        List<Double> target = new ArrayList<>();
        for (int i = 0; i < perSecondUs.length; i++) {
            t.add((double) i);
            rps.add((double) perSecondUs[i].getTotalCount());
            p99.add(perSecondUs[i].getTotalCount() == 0 ? 0.0 : perSecondUs[i].getValueAtPercentile(99) / 1000.0);
            target.add(targetRate);
        }
        XYChart chart = new XYChartBuilder()
                .width(WIDTH)
                .height(HEIGHT)
                .title(title)
                .xAxisTitle("second of the run")
                .yAxisTitle("answered requests per second")
                .build();
        XYStyler st = chart.getStyler();
        st.setLegendPosition(Styler.LegendPosition.InsideSW);
        st.setChartBackgroundColor(Color.WHITE);
        st.setYAxisMin(0.0);
        chart.setYAxisGroupTitle(1, "p99 latency (ms)");
        st.setYAxisGroupPosition(1, Styler.YAxisPosition.Right);
        XYSeries a = chart.addSeries("answered req/s", t, rps);
        a.setMarker(SeriesMarkers.NONE);
        a.setLineColor(new Color(31, 119, 180));
        XYSeries b = chart.addSeries("target req/s", t, target);
        b.setMarker(SeriesMarkers.NONE);
        b.setLineColor(Color.GRAY);
        XYSeries c = chart.addSeries("p99 ms (right axis)", t, p99);
        c.setMarker(SeriesMarkers.NONE);
        c.setLineColor(new Color(214, 39, 40));
        c.setYAxisGroup(1);
        BitmapEncoder.saveBitmap(chart, png.toString(), BitmapEncoder.BitmapFormat.PNG);
    }
}
