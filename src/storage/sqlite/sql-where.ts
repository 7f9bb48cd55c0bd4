// Dynamic WHERE clauses: one condition and its bound value, added only when the filter is set.
export type SqlArg = string | bigint | number;

/** `sql` with ` AND clause` appended and `value` bound, or `sql` unchanged when `value` is undefined. */
export function andWhere(sql: string, args: SqlArg[], clause: string, value: SqlArg | undefined): string {
  if (value === undefined) return sql;
  args.push(value);
  return `${sql} AND ${clause}`;
}
