/**
 * Starting a job over several JVMs of this host: the launcher side ({@link io.jrma.core.launch.JobLauncher}:
 * spawns the JVMs, acts as the rendezvous, watches them and tears the job down on the first failure), the
 * JVM side ({@link io.jrma.core.launch.JvmHost}: joins the rendezvous, connects the TCP mesh, runs its ranks)
 * and the messages between them ({@link io.jrma.core.launch.Rendezvous}).
 */
package io.jrma.core.launch;
