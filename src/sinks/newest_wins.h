// Silver's one rule, the same within a batch and across batches: the row of a key is its newest
// event by (order_by, ties), a NULL order_by oldest; the existing row stays unless the incoming
// one is newer by that order. An identical resend at a later position is newer by the ties: it
// changes the row's lineage (its partition and offset), never its values, so that the row's
// ties are always those of the newest copy and a later event that ties on order_by is compared
// with them (kept at the first copy, a later event between the two copies would win against an
// older position than the table's event really has). The table is then a function of the
// events read, lineage included, whatever the batching.
// Written once as SQL here; the key index (sinks/key_index.h) applies the same order to the
// values it keeps.
#pragma once

#include <string>
#include <vector>

#include "sql/row_per_group.h"

namespace lakestream {

struct NewestWins {
  std::string order_by;           // the newest row of a key wins; NULL is oldest
  std::vector<std::string> ties;  // BIGINT columns that decide, in order, when order_by ties
};

// SQL: whether row `a` is newer than row `b` (two relation aliases) by the rule's order.
std::string newer_sql(const NewestWins& rule, const std::string& a, const std::string& b);

// SQL over `t` (the existing row) and `s` (the incoming one): whether the existing row stays.
std::string existing_row_stays_sql(const NewestWins& rule);

// SQL: the row each key has after the relation `rows` (SQL that can follow FROM, with every
// column of the rule): the key's newest row by the rule. All the relation's columns, in order;
// NULL keys are a key like any other, as in GROUP BY. `grouping` as sql/row_per_group.h says: the
// same rows either way.
std::string newest_per_key_sql(const NewestWins& rule, const std::vector<std::string>& keys, const std::string& rows,
                               sql::Grouping grouping);

}  // namespace lakestream
