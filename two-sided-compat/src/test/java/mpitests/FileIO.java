package mpitests;

import static mpitests.Check.check;
import static mpitests.Check.eq;
import static mpitests.Check.fails;

import java.nio.IntBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Arrays;
import mpi.Datatype;
import mpi.File;
import mpi.MPI;
import mpi.MPIException;
import mpi.Request;
import mpi.Status;

/**
 * MPI-IO through mpi.File: explicit offsets, views, file pointers, ordered access, and the errors of files.
 * Needs 2 ranks or more.
 */
public final class FileIO {
    public static void main(String[] args) throws Exception {
        MPI.Init(args);
        int me = MPI.COMM_WORLD.getRank();
        int n = MPI.COMM_WORLD.getSize();
        check(n >= 2, "needs 2 ranks");

        // rank 0 picks a fresh directory; everyone learns its name
        byte[] dir = new byte[1024];
        int[] len = new int[1];
        if (me == 0) {
            byte[] d = Files.createTempDirectory("jrma-fileio").toString().getBytes(StandardCharsets.UTF_8);
            System.arraycopy(d, 0, dir, 0, d.length);
            len[0] = d.length;
        }
        MPI.COMM_WORLD.bcast(len, 1, MPI.INT, 0);
        MPI.COMM_WORLD.bcast(dir, len[0], MPI.BYTE, 0);
        String name = new String(dir, 0, len[0], StandardCharsets.UTF_8) + "/data";

        // errors of opening are returned (MPI_FILE_NULL's handler is ERRORS_RETURN)
        fails(MPI.ERR_NO_SUCH_FILE, () -> new File(MPI.COMM_WORLD, name, MPI.MODE_RDONLY), "open a missing file");
        fails(MPI.ERR_AMODE, () -> new File(MPI.COMM_WORLD, name, MPI.MODE_RDONLY | MPI.MODE_CREATE), "RDONLY|CREATE");

        File f = new File(MPI.COMM_WORLD, name, MPI.MODE_CREATE | MPI.MODE_RDWR);
        check(f.getErrhandler() == MPI.ERRORS_RETURN, "files start with ERRORS_RETURN");
        f.callErrhandler(MPI.ERR_FILE); // returns under ERRORS_RETURN
        eq(MPI.MODE_CREATE | MPI.MODE_RDWR, f.getAMode(), "amode");
        // explicit offsets in bytes (the default view): rank r writes ints r*10 .. r*10+2 at byte 12 r
        int[] mine = {me * 10, me * 10 + 1, me * 10 + 2};
        Status ws = f.writeAtAll(12L * me, mine, 3, MPI.INT);
        eq(3, ws.getCount(MPI.INT), "written count");
        MPI.COMM_WORLD.barrier();
        eq(12L * n, f.getSize(), "file size");
        int[] all = new int[3 * n];
        Status rs = f.readAt(0, all, 3 * n, MPI.INT);
        eq(3 * n, rs.getCount(MPI.INT), "read count");
        for (int r = 0; r < n; r++) {
            eq(r * 10 + 2, all[3 * r + 2], "data of rank " + r);
        }
        int[] past = new int[4];
        eq(0, f.readAt(12L * n, past, 4, MPI.INT).getCount(MPI.INT), "reading at the end of file reads nothing");

        // a view of ints after a 12-byte header: offsets and file pointers count ints
        MPI.COMM_WORLD.barrier();
        f.setView(12, MPI.INT, MPI.INT, "native");
        eq(12L + 4L * 5, f.getByteOffset(5), "byte offset of int 5");
        f.seek(me, MPI.SEEK_SET);
        IntBuffer one = MPI.newIntBuffer(1);
        f.read(one, 1, MPI.INT);
        eq(all[3 + me], one.get(0), "read through the view at the individual pointer");
        eq(me + 1, f.getPosition(), "the pointer moved by one int");
        f.seek(0, MPI.SEEK_END);
        eq(3L * n - 3, f.getPosition(), "SEEK_END counts ints of the view");

        // ordered writes: rank r's 2 ints follow rank r-1's, at the shared pointer
        MPI.COMM_WORLD.barrier();
        f.seekShared(0, MPI.SEEK_SET);
        f.writeOrdered(new int[] {100 + me, 200 + me}, 2, MPI.INT);
        eq(2L * n, f.getPositionShared(), "the shared pointer moved past every rank's data");
        MPI.COMM_WORLD.barrier();
        int[] pair = new int[2];
        f.readAt(2L * me, pair, 2, MPI.INT);
        eq(new int[] {100 + me, 200 + me}, pair, "ordered write in rank order");
        Request ir = f.iReadAt(2L * ((me + 1) % n), one, 1, MPI.INT);
        ir.waitFor();
        eq(100 + (me + 1) % n, one.get(0), "iReadAt");

        // the shared pointer outside collectives: every rank writes one int at it, in whatever order they come
        MPI.COMM_WORLD.barrier();
        f.seekShared(0, MPI.SEEK_SET);
        f.writeShared(new int[] {1000 + me}, 1, MPI.INT);
        MPI.COMM_WORLD.barrier();
        eq(n, f.getPositionShared(), "every writeShared moved the shared pointer by one int");
        int[] got = new int[n];
        f.readAt(0, got, n, MPI.INT);
        Arrays.sort(got);
        for (int r = 0; r < n; r++) {
            eq(1000 + r, got[r], "each rank's writeShared landed in its own int");
        }
        MPI.COMM_WORLD.barrier();
        f.seekShared(0, MPI.SEEK_SET);
        Request sr = f.iReadShared(one, 1, MPI.INT);
        sr.waitFor();
        int[] each = new int[n];
        MPI.COMM_WORLD.allGather(new int[] {one.get(0)}, 1, MPI.INT, each, 1, MPI.INT);
        Arrays.sort(each);
        for (int r = 0; r < n; r++) {
            eq(1000 + r, each[r], "each rank's iReadShared read another int");
        }

        // a view with holes: rank r's file type is int r of every row of n ints; three writes through it
        // interleave the ranks' data
        MPI.COMM_WORLD.barrier();
        Datatype column = Datatype.createResized(Datatype.createHIndexed(new int[] {1}, new int[] {4 * me}, MPI.INT),
                0, 4 * n);
        column.commit();
        f.setView(0, MPI.INT, column, "native");
        eq(0, f.getPositionShared(), "setView resets the shared pointer");
        eq(4L * (2 * n + me), f.getByteOffset(2), "byte offset of the third int of the view");
        f.write(new int[] {me, 10 + me, 20 + me}, 3, MPI.INT);
        IntBuffer mid = MPI.newIntBuffer(2);
        f.iWriteAtAll(3, mid.put(0, 30 + me).put(1, 40 + me), 2, MPI.INT).waitFor();
        MPI.COMM_WORLD.barrier();
        int[] back = new int[2];
        eq(2, f.readAt(1, back, 2, MPI.INT).getCount(MPI.INT), "read through the view with holes");
        eq(new int[] {10 + me, 20 + me}, back, "ints 1 and 2 of this rank's column");
        f.setView(0, MPI.INT, MPI.INT, "native");
        int[] grid = new int[5 * n];
        f.iReadAtAll(0, MPI.newIntBuffer(1), 1, MPI.INT).waitFor();
        f.readAt(0, grid, 5 * n, MPI.INT);
        for (int row = 0; row < 5; row++) {
            for (int r = 0; r < n; r++) {
                eq(10 * row + r, grid[row * n + r], "row " + row + " column " + r + " of the interleaved file");
            }
        }
        column.free();
        f.sync();
        f.close();

        // read-only: writes are ERR_READ_ONLY; delete on close
        File ro = new File(MPI.COMM_WORLD, name, MPI.MODE_RDONLY | MPI.MODE_DELETE_ON_CLOSE);
        fails(MPI.ERR_READ_ONLY, () -> ro.writeAt(0, mine, 1, MPI.INT), "write to a read-only file");
        ro.close();
        MPI.COMM_WORLD.barrier();
        check(!Files.exists(Paths.get(name)), "deleted on close");
        if (me == 0) {
            fails(MPI.ERR_NO_SUCH_FILE, () -> File.delete(name), "delete a missing file");
            Files.delete(Paths.get(name).getParent());
        }
        MPI.Finalize();
        if (me == 0) {
            System.out.println("FileIO OK on " + n + " ranks");
        }
    }
}
