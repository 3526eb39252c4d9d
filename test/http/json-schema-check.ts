/**
 * A small structural checker for the JSON Schema subset src/http/schemas.ts uses (type,
 * const, enum, pattern, minLength, minimum, properties, required, additionalProperties:
 * false, items, anyOf, local $ref). It returns the first few problems as readable paths, so
 * a test can assert that real responses match the schemas the OpenAPI document publishes.
 */
type Schema = Readonly<Record<string, unknown>>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function matchesType(value: unknown, expected: string): boolean {
  const actual = typeOf(value);
  return actual === expected || (expected === 'number' && actual === 'integer');
}

/** Problems of `value` against `schema`; `$ref`s like `#/components/schemas/X` resolve in `components`. */
export function schemaProblems(
  value: unknown,
  schema: Schema,
  components: Readonly<Record<string, Schema>> = {},
  at = '$',
): string[] {
  const ref = schema.$ref;
  if (typeof ref === 'string') {
    const name = ref.replace('#/components/schemas/', '');
    const target = components[name];
    if (target === undefined) return [`${at}: unresolvable $ref ${ref}`];
    return schemaProblems(value, target, components, at);
  }
  const problems: string[] = [];
  if ('const' in schema && value !== schema.const) {
    problems.push(`${at}: expected ${JSON.stringify(schema.const)}, got ${JSON.stringify(value)}`);
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) {
    problems.push(`${at}: ${JSON.stringify(value)} is not one of ${JSON.stringify(schema.enum)}`);
  }
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
    if (!types.some((t) => matchesType(value, t))) {
      return [...problems, `${at}: expected type ${types.join('|')}, got ${typeOf(value)}`];
    }
  }
  if (typeof value === 'string') {
    if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
      problems.push(`${at}: ${JSON.stringify(value)} does not match ${schema.pattern}`);
    }
    if (typeof schema.minLength === 'number' && value.length < schema.minLength) {
      problems.push(`${at}: shorter than ${schema.minLength}`);
    }
  }
  if (typeof value === 'number' && typeof schema.minimum === 'number' && value < schema.minimum) {
    problems.push(`${at}: ${value} is below ${schema.minimum}`);
  }
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as Schema[]).some((s) => schemaProblems(value, s, components, at).length === 0);
    if (!fits) problems.push(`${at}: matches none of anyOf: ${JSON.stringify(value).slice(0, 200)}`);
  }
  if (Array.isArray(value) && schema.items !== undefined) {
    value.forEach((item, i) => {
      problems.push(...schemaProblems(item, schema.items as Schema, components, `${at}[${i}]`));
    });
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    for (const name of (schema.required ?? []) as string[]) {
      if (!(name in object)) problems.push(`${at}: missing required ${name}`);
    }
    for (const [name, child] of Object.entries(object)) {
      const sub = properties[name];
      if (sub !== undefined) problems.push(...schemaProblems(child, sub, components, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}: unexpected property ${name}`);
    }
  }
  return problems.slice(0, 10);
}
