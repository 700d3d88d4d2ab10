// Silver's one rule, the same within a batch and across batches: the row of a key is its newest
// event by (order_by, ties), a NULL order_by oldest. The existing row stays unless the incoming
// one is newer by that order; an identical resend of it (the same values in every event column)
// changes nothing, not even its lineage (kept in the table, the ties decide later ties).
// Written once as SQL here; the key index (sinks/key_index.h) applies the same order to the
// values it keeps.
#pragma once

#include <string>
#include <vector>

#include "sql/row_per_group.h"

namespace lakestream {

struct NewestWins {
  std::string order_by;                    // the newest row of a key wins; NULL is oldest
  std::vector<std::string> ties;           // BIGINT columns that decide, in order, when order_by ties
  std::vector<std::string> event_columns;  // what an event says: the same values here is a resend
};

// SQL: whether row `a` is newer than row `b` (two relation aliases) by the rule's order.
std::string newer_sql(const NewestWins& rule, const std::string& a, const std::string& b);

// SQL over `t` (the existing row) and `s` (the incoming one): whether the existing row stays.
std::string existing_row_stays_sql(const NewestWins& rule);

// SQL: the row each key has after the relation `rows` (SQL that can follow FROM, with every
// column of the rule), as the rule applies it within a batch: the key's newest row, except
// that of identical copies in a row (a resend, by the event columns) the first. All the
// relation's columns, in order; NULL keys are a key like any other, as in GROUP BY. `grouping`
// as sql/row_per_group.h says: the same rows either way.
std::string newest_per_key_sql(const NewestWins& rule, const std::vector<std::string>& keys, const std::string& rows,
                               sql::Grouping grouping);

}  // namespace lakestream
