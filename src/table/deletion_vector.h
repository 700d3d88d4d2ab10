// Deletion vectors (PROTOCOL.md, "Deletion Vectors"): the rows of a data file that a DELETE,
// UPDATE or MERGE marked deleted without rewriting the file. A vector is a set of row indexes
// (0-based positions in the file), serialized as a RoaringBitmapArray (64-bit Roaring: a 32-bit
// portable Roaring bitmap per high half) after a magic number, and stored either inline in the
// log (Z85 text) or in a `deletion_vector_<uuid>.bin` file beside the data, framed with its size
// and a CRC-32.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "table/delta_table.h"

namespace lakestream::delta {

// The rows `vector` deletes, ascending, read from the table at `table` (its file, for a
// vector on storage) and checked: the checksum, the magic number, the Roaring layout and the
// cardinality the descriptor states. Decoded vectors are kept (a few thousand, least recently
// used first out): their files never change. Throws Error naming the file and what is wrong.
std::vector<uint64_t> deleted_rows(const Table& table, const DeletionVector& vector);

// Writes `rows` (ascending, unique) as a new deletion vector file of the table
// (`deletion_vector_<uuid>.bin`: format version, size, the serialized vector, its CRC-32), with
// put-if-absent under a fresh UUID; returns its descriptor (storage type u). A crash before the
// commit that uses it leaves an unreferenced file, which vacuum deletes.
DeletionVector write_deletion_vector(const Table& table, const std::vector<uint64_t>& rows);

// The path of a vector's file relative to the table folder ("ab/deletion_vector_<uuid>.bin"),
// for the storage types that have one ('u'); empty for inline vectors and absolute paths ('p').
std::string deletion_vector_file(const DeletionVector& vector);

// The key in the table of a vector's file: deletion_vector_file() for 'u', and for 'p' its
// absolute path (URL-decoded) when it lies in the table's folder; empty otherwise (inline, or a
// file elsewhere). What vacuum must keep.
std::string deletion_vector_key(const Table& table, const DeletionVector& vector);

// The pieces, public for their tests.
std::string z85_decode(const std::string& text);    // throws Error on a character outside Z85
std::string z85_encode(const std::string& bytes);   // pads to a multiple of 4 bytes with zeros
// The serialized vector (magic number + RoaringBitmapArray) and back; `rows` ascending, unique.
std::vector<uint64_t> decode_row_bitmap(const std::string& bytes, const std::string& where);
std::string encode_row_bitmap(const std::vector<uint64_t>& rows);

}  // namespace lakestream::delta
