package mpi;

/** The version of the MPI standard implemented (MPI_Get_version): 3.1. */
public final class Version {
    private final int version;
    private final int subVersion;

    Version(int version, int subVersion) {
        this.version = version;
        this.subVersion = subVersion;
    }

    /** The MPI version. */
    public int getVersion() {
        return version;
    }

    /** The MPI subversion. */
    public int getSubVersion() {
        return subVersion;
    }
}
