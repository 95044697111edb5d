# plot.gp - a dcqcn-sim run as a PNG: per-flow R_C (bin means, Gbit/s)
# and, for closed loops, the bottleneck queue (bin mean and maximum, KB)
# over time, and with a gateway its flow queue (maximum, KB). Variables
# (gnuplot -e): samples (PREFIX.samples.csv written by dcqcn-sim --plot),
# out (the PNG), plot_title, nflows, queue (0/1), gw (0/1).
# Run by `dcqcn-sim --plot PREFIX`, or by hand:
#   gnuplot -e "samples='x.samples.csv'; out='x.png'; plot_title='x'; \
#               nflows=2; queue=1; gw=0" bench/dcqcn-sim/plot.gp
if (!exists("gw")) gw = 0
set datafile separator ','
set terminal pngcairo size 1200, (queue ? 900 : 500) font 'sans,10'
set output out
set key outside right top
set grid
if (queue) {
	set multiplot layout 2, 1 title plot_title
} else {
	set title plot_title
}
set xlabel 'time (ms)'
set ylabel 'R_C, bin mean (Gbit/s)'
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
plot for [i=1:nflows] samples using 1:(column(3 + i)) every ::1 \
	with lines title sprintf('flow %d', i)
if (queue) {
	unset title
	set ylabel (gw ? 'queue (KB)' : 'bottleneck queue (KB)')
	plot samples using 1:3 every ::1 with lines lc rgb '#bbbbbb' \
		title (gw ? 'bottleneck, max in bin' : 'max in bin'), \
	     samples using 1:2 every ::1 with lines lw 2 lc rgb '#c00000' \
		title (gw ? 'bottleneck, mean in bin' : 'mean in bin'), \
	     for [g=1:gw] samples using 1:(column(4 + nflows)) every ::1 \
		with lines lw 2 lc rgb '#0060c0' \
		title 'gateway flow queue, max in bin'
	unset multiplot
}
