/**
 * The in-JVM rank runtime (internal): the job, the wait policy (spin, yield, park), communicators whose members are
 * threads, and the in-JVM transport. Its run-time parameters are defined in {@code io.jrma.core.config}.
 */
package io.jrma.core.runtime;
