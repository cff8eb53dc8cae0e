package mpitests;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.LinkedHashMap;
import java.util.Map;
import mpi.Comm;
import mpi.MPI;
import mpi.Win;
import org.junit.jupiter.api.Test;

/**
 * Source compatibility with Open MPI's Java bindings. {@link ApiSurface} uses every public member of Open
 * MPI's API with its exact types, so dropping or changing one fails the compilation of the tests; this test
 * checks that class was built as intended, and that the constants programs compare against have Open MPI's
 * values (those of its mpi.h, which its binding reads at start-up).
 */
class ApiSurfaceTest {
    @Test
    void theSurfaceClassCompiledWithBothHalves() throws Exception {
        Method free = null;
        Method throwing = null;
        Method objects = null;
        for (Method m : Class.forName("mpitests.ApiSurface").getDeclaredMethods()) {
            if (m.getName().equals("withoutCheckedExceptions")) {
                free = m;
            } else if (m.getName().equals("withCheckedExceptions")) {
                throwing = m;
            }
        }
        for (Method m : Class.forName("mpitests.ApiSurfaceObjects").getDeclaredMethods()) {
            if (m.getName().equals("withCheckedExceptions")) {
                objects = m;
            }
        }
        assertTrue(free != null && throwing != null && objects != null, "every part of ApiSurface");
        assertEquals(0, free.getExceptionTypes().length,
                "the half for members without checked exceptions declares none");
        for (String nested : new String[] {"Particle", "Particle$Data", "Pair", "Flags", "Flags$Data",
                "Fold", "Resource"}) {
            Class.forName("mpitests.ApiSurfaceTypes$" + nested);
        }
    }

    @Test
    void constantsHaveOpenMpiValues() throws Exception {
        Map<String, Integer> expected = new LinkedHashMap<>();
        put(expected, "THREAD_SINGLE", 0, "THREAD_FUNNELED", 1, "THREAD_SERIALIZED", 2, "THREAD_MULTIPLE", 3);
        put(expected, "CART", 1, "GRAPH", 2, "DIST_GRAPH", 3);
        put(expected, "ANY_SOURCE", -1, "ANY_TAG", -1, "PROC_NULL", -2, "ROOT", -4, "UNDEFINED", -32766,
                "KEYVAL_INVALID", -1);
        put(expected, "IDENT", 0, "CONGRUENT", 1, "SIMILAR", 2, "UNEQUAL", 3);
        put(expected, "TAG_UB", 0, "HOST", 1, "IO", 2, "WTIME_IS_GLOBAL", 3, "APPNUM", 4, "LASTUSEDCODE", 5,
                "UNIVERSE_SIZE", 6, "WIN_BASE", 7, "WIN_SIZE", 8, "WIN_DISP_UNIT", 9);
        put(expected, "VERSION", 3, "SUBVERSION", 1, "BSEND_OVERHEAD", 128, "MAX_OBJECT_NAME", 64,
                "MAX_PORT_NAME", 1024, "MAX_DATAREP_STRING", 128, "MAX_INFO_KEY", 36, "MAX_INFO_VAL", 256);
        put(expected, "ORDER_C", 0, "ORDER_FORTRAN", 1, "DISTRIBUTE_BLOCK", 0, "DISTRIBUTE_CYCLIC", 1,
                "DISTRIBUTE_NONE", 2, "DISTRIBUTE_DFLT_DARG", -1);
        put(expected, "MODE_CREATE", 1, "MODE_RDONLY", 2, "MODE_WRONLY", 4, "MODE_RDWR", 8,
                "MODE_DELETE_ON_CLOSE", 16, "MODE_UNIQUE_OPEN", 32, "MODE_EXCL", 64, "MODE_APPEND", 128,
                "MODE_SEQUENTIAL", 256, "DISPLACEMENT_CURRENT", -54278278, "SEEK_SET", 600, "SEEK_CUR", 602,
                "SEEK_END", 604);
        put(expected, "MODE_NOCHECK", 1, "MODE_NOPRECEDE", 2, "MODE_NOPUT", 4, "MODE_NOSTORE", 8,
                "MODE_NOSUCCEED", 16, "LOCK_EXCLUSIVE", 1, "LOCK_SHARED", 2);
        String[] errors = {"SUCCESS", "ERR_BUFFER", "ERR_COUNT", "ERR_TYPE", "ERR_TAG", "ERR_COMM", "ERR_RANK",
            "ERR_REQUEST", "ERR_ROOT", "ERR_GROUP", "ERR_OP", "ERR_TOPOLOGY", "ERR_DIMS", "ERR_ARG", "ERR_UNKNOWN",
            "ERR_TRUNCATE", "ERR_OTHER", "ERR_INTERN", "ERR_IN_STATUS", "ERR_PENDING", "ERR_ACCESS", "ERR_AMODE",
            "ERR_ASSERT", "ERR_BAD_FILE", "ERR_BASE", "ERR_CONVERSION", "ERR_DISP", "ERR_DUP_DATAREP",
            "ERR_FILE_EXISTS", "ERR_FILE_IN_USE", "ERR_FILE", "ERR_INFO_KEY", "ERR_INFO_NOKEY", "ERR_INFO_VALUE",
            "ERR_INFO", "ERR_IO", "ERR_KEYVAL", "ERR_LOCKTYPE", "ERR_NAME", "ERR_NO_MEM", "ERR_NOT_SAME",
            "ERR_NO_SPACE", "ERR_NO_SUCH_FILE", "ERR_PORT", "ERR_QUOTA", "ERR_READ_ONLY", "ERR_RMA_CONFLICT",
            "ERR_RMA_SYNC", "ERR_SERVICE", "ERR_SIZE", "ERR_SPAWN", "ERR_UNSUPPORTED_DATAREP",
            "ERR_UNSUPPORTED_OPERATION", "ERR_WIN"};
        for (int i = 0; i < errors.length; i++) {
            expected.put(errors[i], i); // MPI_SUCCESS .. MPI_ERR_WIN are 0 .. 53
        }
        expected.put("ERR_LASTCODE", 92);

        for (Map.Entry<String, Integer> e : expected.entrySet()) {
            Field f = MPI.class.getField(e.getKey());
            assertTrue(Modifier.isStatic(f.getModifiers()) && Modifier.isFinal(f.getModifiers()), e.getKey());
            assertEquals(int.class, f.getType(), e.getKey());
            assertEquals(e.getValue().intValue(), f.getInt(null), "MPI." + e.getKey());
        }
        assertEquals(0, Comm.TYPE_SHARED, "Comm.TYPE_SHARED");
        assertEquals(0, Win.WIN_NULL, "Win.WIN_NULL");
        assertEquals(0, Win.FLAVOR_PRIVATE, "Win.FLAVOR_PRIVATE");
        assertEquals(1, Win.FLAVOR_SHARED, "Win.FLAVOR_SHARED");
    }

    private static void put(Map<String, Integer> m, Object... kv) {
        for (int i = 0; i < kv.length; i += 2) {
            m.put((String) kv[i], (Integer) kv[i + 1]);
        }
    }
}
