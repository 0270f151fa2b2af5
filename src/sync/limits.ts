/**
 * The size bound of every file the sync step reads or downloads (a pinned proto, a google/api proto, the
 * lock). The pinned protos are under 200 KB and their sha256 is known in advance, so anything much larger is
 * not one of them: it is refused before it is read (or, downloading, as soon as it goes past the bound), and
 * the sync never holds more than this many bytes of one file.
 */
export const maxProtoBytes = 8 * 1024 * 1024;
