package mpi;

/** A file view (MPI_FILE_GET_VIEW): displacement in bytes, elementary type, file type and data representation. */
public final class FileView {
    private final long disp;
    private final Datatype etype;
    private final Datatype filetype;
    private final String datarep;

    /** A view of {@code disp} bytes, {@code etype}, {@code filetype} and {@code datarep}. */
    public FileView(long disp, Datatype etype, Datatype filetype, String datarep) {
        this.disp = disp;
        this.etype = etype;
        this.filetype = filetype;
        this.datarep = datarep;
    }

    /** The displacement in bytes from the start of the file. */
    public long getDisp() {
        return disp;
    }

    /** The elementary datatype: offsets are in units of it. */
    public Datatype getEType() {
        return etype;
    }

    /** The file type. */
    public Datatype getFileType() {
        return filetype;
    }

    /** The data representation ("native"). */
    public String getDataRep() {
        return datarep;
    }
}
