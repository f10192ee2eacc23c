/**
 * `?` placeholders (as SQL shared with SQLite writes them) as PostgreSQL numbers them, from `$first`.
 * @internal
 */
export function numbered(sql: string, first = 1): string {
  let n = first - 1;
  return sql.replace(/\?/g, () => `$${++n}`);
}
