/**
 * Starting jobs: the command-line launcher {@code jrmarun} ({@link JrmaRun}), which runs a Java program's
 * {@code main(String[])} as the ranks of a jrma job over one or more JVMs of this host or of several hosts (their list:
 * {@link HostList}; where each rank runs and what it is bound to, as mpirun's {@code --map-by}, {@code --rank-by} and
 * {@code --bind-to} decide it: {@link RankMap}; JVMs started there through a launch agent such as ssh, and the
 * addresses a job across hosts listens on: {@link RemoteStart}); the launch engine
 * ({@link JobLauncher}: spawns the JVMs, acts as the rendezvous, watches them and tears the job down on the first
 * failure), the JVM side ({@link JvmHost}: joins the rendezvous, opens the transports the job selects, runs its
 * ranks) and the messages between them ({@link Rendezvous}). {@code Jrma.job(n).jvms(j)} reaches the engine
 * through {@link io.jrma.spi.JobStarter}, found with {@code ServiceLoader}: rma-core does not link this module.
 * A process that another launcher started (mpirun, mpiexec, srun) joins that launcher's job through
 * {@link PmiBootstrap}.
 */
package io.jrma.launcher;
