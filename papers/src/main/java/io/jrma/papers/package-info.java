/**
 * The design papers' claims reproduced with jrma (issue 32, papers/README.md): the experiments that run inside jrma
 * jobs ({@link io.jrma.papers.EpochProbe}, {@link io.jrma.papers.WaitProbe}), the JMH benchmark of transports chosen
 * through the component SPI or wired by hand ({@link io.jrma.papers.SelectionBench} over
 * {@link io.jrma.papers.WiredPair}), and the report that turns their measurements into a folder's RESULTS.md, plot
 * and verdict ({@link io.jrma.papers.Report}).
 */
package io.jrma.papers;
