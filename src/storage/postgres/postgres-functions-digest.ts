/**
 * PostgreSQL's twins of the instant and digest arithmetic of domain/instant.ts and
 * domain/meals-digest.ts, for the single-meal writes that place a meal on the clock in SQL
 * (postgres-functions-single-writes.ts); test/storage/postgres-write-functions.test.ts holds
 * them to their JS twins byte for byte.
 * Part of migration 10 (migrations.ts): released migrations are never edited; a later change
 * of these functions is a new migration that replaces them.
 */
export const DIGEST_FUNCTIONS_SQL = `
-- An instant as domain/instant.ts formatInstant writes it (Date.prototype.toISOString), byte
-- for byte over JavaScript's whole range of dates: YYYY-MM-DDTHH:mm:ss.sssZ for the years
-- 0000-9999, a sign and six digits for the others, proleptic Gregorian with a year 0. Plain
-- integer arithmetic (days to a civil date as in H. Hinnant's "chrono-compatible low-level date
-- algorithms"), so no time zone, float or PostgreSQL calendar limit plays a part.
CREATE FUNCTION meal_export_instant(ms bigint) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
  days bigint := ms / 86400000;
  of_day bigint;
  z bigint;
  era bigint;
  doe bigint;
  yoe bigint;
  doy bigint;
  mp bigint;
  y bigint;
  m bigint;
  d bigint;
BEGIN
  -- JavaScript's Date holds ±8.64e15 ms: beyond, toISOString throws.
  IF ms < -8640000000000000 OR ms > 8640000000000000 THEN
    RAISE EXCEPTION 'invalid time value: % ms', ms USING ERRCODE = 'datetime_field_overflow';
  END IF;
  -- Division truncates towards zero: the day of an instant before 1970 is one less.
  IF ms % 86400000 < 0 THEN
    days := days - 1;
  END IF;
  of_day := ms - days * 86400000;
  z := days + 719468;
  era := (CASE WHEN z >= 0 THEN z ELSE z - 146096 END) / 146097;
  doe := z - era * 146097;
  yoe := (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  doy := doe - (365 * yoe + yoe / 4 - yoe / 100);
  mp := (5 * doy + 2) / 153;
  d := doy - (153 * mp + 2) / 5 + 1;
  m := CASE WHEN mp < 10 THEN mp + 3 ELSE mp - 9 END;
  y := yoe + era * 400 + CASE WHEN m <= 2 THEN 1 ELSE 0 END;
  RETURN CASE
      WHEN y BETWEEN 0 AND 9999 THEN lpad(y::text, 4, '0')
      WHEN y < 0 THEN '-' || lpad((-y)::text, 6, '0')
      ELSE '+' || lpad(y::text, 6, '0')
    END
    || '-' || lpad(m::text, 2, '0') || '-' || lpad(d::text, 2, '0')
    || 'T' || lpad((of_day / 3600000)::text, 2, '0')
    || ':' || lpad((of_day / 60000 % 60)::text, 2, '0')
    || ':' || lpad((of_day / 1000 % 60)::text, 2, '0')
    || '.' || lpad((of_day % 1000)::text, 3, '0') || 'Z';
END
$fn$;

-- 16 bytes read as an unsigned big-endian integer (storage/digest-bytes.ts digestSumOf).
CREATE FUNCTION meal_export_u128(bytes bytea) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
  two64 CONSTANT numeric := 18446744073709551616;
  -- bit(64)::bigint reads the bits as two's complement: a high bit set is 2^64 less.
  hi bigint := ('x' || encode(substring(bytes FROM 1 FOR 8), 'hex'))::bit(64)::bigint;
  lo bigint := ('x' || encode(substring(bytes FROM 9 FOR 8), 'hex'))::bit(64)::bigint;
BEGIN
  RETURN (hi + CASE WHEN hi < 0 THEN two64 ELSE 0 END) * two64 + lo + CASE WHEN lo < 0 THEN two64 ELSE 0 END;
END
$fn$;

-- A live meal's digest term (domain/meals-digest.ts mealDigestTerm): the first 16 bytes of
-- SHA-256 over the UTF-8 of "<id>\\n<modifiedAt as meal_export_instant writes it>". PL/pgSQL,
-- not SQL: PostgreSQL plans a SQL function's body again at every call from PL/pgSQL.
CREATE FUNCTION meal_export_digest_term(id text, instant text) RETURNS numeric
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
BEGIN
  RETURN meal_export_u128(substring(sha256(convert_to(id || E'\\n' || instant, 'UTF8')) FROM 1 FOR 16));
END
$fn$;

-- A digest's sum moved by \`delta\` (terms added less terms taken), modulo 2^128, as the 16
-- bytes the clock row keeps (domain/meals-digest.ts DigestChange.applyTo, digest-bytes.ts).
CREATE FUNCTION meal_export_digest_moved(sum bytea, delta numeric) RETURNS bytea
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $fn$
DECLARE
  two63 CONSTANT numeric := 9223372036854775808;
  two64 CONSTANT numeric := 18446744073709551616;
  two128 CONSTANT numeric := two64 * two64;
  moved numeric := mod(meal_export_u128(sum) + delta, two128);
  hi numeric;
  lo numeric;
BEGIN
  -- mod keeps the dividend's sign.
  IF moved < 0 THEN
    moved := moved + two128;
  END IF;
  hi := div(moved, two64);
  lo := mod(moved, two64);
  -- int8send writes a bigint's 8 bytes big-endian, two's complement.
  RETURN int8send((CASE WHEN hi >= two63 THEN hi - two64 ELSE hi END)::bigint)
    || int8send((CASE WHEN lo >= two63 THEN lo - two64 ELSE lo END)::bigint);
END
$fn$;
`;
