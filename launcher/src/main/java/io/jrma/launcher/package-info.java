/**
 * {@code jrmarun}: the command-line launcher ({@link io.jrma.launcher.JrmaRun}) that runs a Java program's
 * {@code main(String[])} as the ranks of a jrma job over one or more JVMs of this host.
 */
package io.jrma.launcher;
