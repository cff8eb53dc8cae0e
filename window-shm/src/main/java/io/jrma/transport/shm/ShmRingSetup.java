package io.jrma.transport.shm;

import io.jrma.ErrorClass;
import io.jrma.RmaException;
import io.jrma.core.runtime.ControlPlane;
import io.jrma.core.runtime.Job;
import io.jrma.spi.transport.Transport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.function.Supplier;

/**
 * How the JVMs of a job agree on their rings, over the control plane (TCP), once per job:
 * <ol>
 *   <li>every JVM tells all others its host identity ({@link io.jrma.core.os.HostId} and the ring directory's device
 *       and inode; empty when it takes no part), pid and ring capacity; the JVMs with equal identities form a
 *       group;</li>
 *   <li>each member creates and maps one file per other member for the ring <em>into</em> it (checking free
 *       space first and writing every byte, so a full tmpfs is an error here, never a SIGBUS later), and
 *       tells the group it is done or why it failed;</li>
 *   <li>each member maps the files of its rings <em>out</em>, and tells the group;</li>
 *   <li>each creator unlinks its files: from here on a crash leaves nothing in the directory;</li>
 *   <li>the control plane sends its messages to the group's JVMs through their rings from now on (TCP for those
 *       larger than a record): every ring exists once step 3's gather returned.</li>
 * </ol>
 * A failure anywhere fails the setup on every member of the group with the same message. Files are named
 * after the creating process ({@link RingFiles#prefix}) so a launcher can remove those of a JVM that died
 * during steps 2 to 4.
 */
final class ShmRingSetup {
    /** Control-plane context of the setup (communicator contexts are positive). */
    static final int SETUP_CONTEXT = Integer.MIN_VALUE;

    private ShmRingSetup() {
    }

    static ShmRingTransport attach(Job job, Transport waitIn, IntConsumer doorbell, String jobId,
            Supplier<String> hostIdentity) {
        int jvms = job.jvmCount();
        if (jvms < 2) {
            return null;
        }
        Map<String, String> params = job.params();
        boolean enabled = ShmParams.shmEnabled(params);
        int capacity = ShmParams.ringBytes(params);
        Path dir = Path.of(ShmParams.DIR.get(params));
        long pid = ProcessHandle.current().pid();
        String identity = enabled ? identity(hostIdentity.get(), dir) : "";
        int me = job.jvmIndex();
        if (!job.callersProgress()) {
            job.start(); // the gathers below need the progress agent to read the TCP connections
        }
        ControlPlane cp = job.controlPlane();
        Object[] all = cp.allgather(SETUP_CONTEXT, 1, representatives(job, allJvms(jvms)), me,
                new String[] {identity, Long.toString(pid), Integer.toString(capacity)});
        if (identity.isEmpty()) {
            return null;
        }
        List<Integer> group = new ArrayList<>();
        for (int j = 0; j < jvms; j++) {
            if (identity.equals(((String[]) all[j])[0])) {
                group.add(j);
            }
        }
        if (group.size() < 2) {
            return null;
        }
        int[] reps = representatives(job, group.stream().mapToInt(Integer::intValue).toArray());
        int myIndex = group.indexOf(me);
        String tag = jobId.length() > 12 ? jobId.substring(0, 12) : jobId;
        Map<Integer, RingFiles.Mapped> in = new LinkedHashMap<>();
        Map<Integer, RingFiles.Mapped> out = new LinkedHashMap<>();
        List<Path> created = new ArrayList<>();
        boolean ok = false;
        try {
            String error = null;
            try {
                int files = group.size() - 1;
                long need = files * RingFileDescriptor.fileLength(capacity);
                RingFiles.checkSpace(dir, need, files, RingFiles.usableSpace(dir));
                for (int peer : group) {
                    if (peer != me) {
                        Path p = RingFiles.path(dir, pid, tag, peer, me);
                        created.add(p);
                        in.put(peer, RingFiles.create(p, capacity, pid, peer, me));
                    }
                }
            } catch (RmaException e) {
                error = describe(me, e);
            }
            checkAll(cp.allgather(SETUP_CONTEXT, 2, reps, myIndex, error == null ? "" : error));
            try {
                for (int peer : group) {
                    if (peer != me) {
                        String[] theirs = (String[]) all[peer];
                        Path p = RingFiles.path(dir, Long.parseLong(theirs[1]), tag, me, peer);
                        out.put(peer, RingFiles.open(p, Integer.parseInt(theirs[2]), me, peer));
                    }
                }
            } catch (RmaException e) {
                error = describe(me, e);
            }
            checkAll(cp.allgather(SETUP_CONTEXT, 3, reps, myIndex, error == null ? "" : error));
            ShmRingTransport t = new ShmRingTransport(job, waitIn, doorbell, out, in);
            List<Integer> ranks = new ArrayList<>();
            for (int r = 0; r < job.size(); r++) {
                if (job.jvmOf(r) != me && group.contains(job.jvmOf(r))) {
                    ranks.add(r);
                }
            }
            // from now on control messages to the host's other JVMs take the rings (Job.sendControl tries the
            // transport registered last first; the last gather confirmed that every ring exists, and records wait
            // there until the receiver polls), the rest and larger ones TCP
            job.addRemote(t, ranks.stream().mapToInt(Integer::intValue).toArray());
            ok = true;
            return t;
        } finally {
            for (Path p : created) {
                RingFiles.deleteQuietly(p); // mapped by every member (or failed): the name is no longer needed
            }
            if (!ok) {
                in.values().forEach(RingFiles.Mapped::unmap);
                out.values().forEach(RingFiles.Mapped::unmap);
            }
        }
    }

    /** Host identity plus the ring directory's device and inode (containers of one host may not share it). */
    private static String identity(String host, Path dir) {
        if (host.isEmpty() || !Files.isDirectory(dir)) {
            return "";
        }
        try {
            return host + "/" + Files.getAttribute(dir, "unix:dev") + ":" + Files.getAttribute(dir, "unix:ino");
        } catch (Exception e) {
            return host + "/" + dir.toAbsolutePath();
        }
    }

    private static String describe(int jvm, RmaException e) {
        return e.errorClass().name() + "|JVM " + jvm + ": "
                + e.getMessage().substring(e.errorClass().name().length() + 2);
    }

    private static void checkAll(Object[] replies) {
        for (Object o : replies) {
            String s = (String) o;
            if (!s.isEmpty()) {
                int bar = s.indexOf('|');
                ErrorClass ec = ErrorClass.valueOf(s.substring(0, bar));
                throw new RmaException(ec, s.substring(bar + 1));
            }
        }
    }

    private static int[] allJvms(int n) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return a;
    }

    /** The lowest world rank of each of {@code jvms}: who speaks for the JVM in the setup's gathers. */
    private static int[] representatives(Job job, int[] jvms) {
        int[] reps = new int[jvms.length];
        for (int i = 0; i < jvms.length; i++) {
            reps[i] = -1;
            for (int r = 0; r < job.size() && reps[i] < 0; r++) {
                if (job.jvmOf(r) == jvms[i]) {
                    reps[i] = r;
                }
            }
            if (reps[i] < 0) {
                throw new RmaException(ErrorClass.ERR_INTERN, "JVM " + jvms[i] + " holds no rank of the job");
            }
        }
        return reps;
    }
}
