/**
 * The design papers' claims reproduced with jrma (issue 32, papers/README.md): the experiments that run inside jrma
 * jobs ({@link io.jrma.papers.EpochProbe}, {@link io.jrma.papers.WaitProbe}) and the report that turns their
 * measurements into a folder's RESULTS.md, plot and verdict ({@link io.jrma.papers.Report}).
 */
package io.jrma.papers;
