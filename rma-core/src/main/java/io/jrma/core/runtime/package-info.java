/**
 * The in-JVM rank runtime (internal): the job, its run-time parameters, the wait policy (spin, yield, park),
 * communicators whose members are threads, and the in-JVM transport.
 */
package io.jrma.core.runtime;
