/**
 * What a tool (a resource, a prompt) can give back beyond plain data: MCP-grade content parts.
 * Binary data travels base64-encoded, as MCP and every model provider carry it.
 */
export interface TextContent {
  type: 'text';
  text: string;
}

export interface ImageContent {
  type: 'image';
  /** Base64 of the image bytes. */
  data: string;
  /** `image/png`, `image/jpeg`, ... */
  mimeType: string;
}

export interface AudioContent {
  type: 'audio';
  /** Base64 of the audio bytes. */
  data: string;
  /** `audio/wav`, `audio/mpeg`, ... */
  mimeType: string;
}

/** A resource's contents: text, or a base64 `blob`. */
export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

/** A resource's contents, carried in the result itself. */
export interface EmbeddedResource {
  type: 'resource';
  resource: ResourceContents;
}

/** A pointer to a resource the client may read (`resources/read`) if it wants it. */
export interface ResourceLink {
  type: 'resource_link';
  uri: string;
  name: string;
  description?: string;
  mimeType?: string;
}

export type ToolContent = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink;

const TOOL_OUTPUT = Symbol.for('hubos.tool-output');

/** A tool's rich result: content parts, and optionally structured data (checked against `outputSchema`). */
export interface ToolOutput {
  readonly [TOOL_OUTPUT]: true;
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
}

/**
 * Marks a handler's return value as content parts rather than data:
 * `return toolOutput({ content: [{ type: 'image', data, mimeType: 'image/png' }] })`.
 * A plain return value (a string, an object) stays as it is: text or JSON data.
 */
export function toolOutput(output: {
  content: ToolContent[];
  structuredContent?: Record<string, unknown>;
}): ToolOutput {
  return { ...output, [TOOL_OUTPUT]: true };
}

/** True for what `toolOutput()` made (duck-typed by symbol, so another copy of hubos's outputs pass). */
export function isToolOutput(value: unknown): value is ToolOutput {
  return typeof value === 'object' && value !== null && (value as ToolOutput)[TOOL_OUTPUT] === true;
}

/**
 * The parts in words, for a surface (or a model) that cannot take them as they are: text as it is,
 * the others as a bracketed note naming what they are, so nothing is silently dropped.
 */
export function contentToText(parts: readonly ToolContent[]): string {
  return parts.map(partToText).join('\n');
}

function partToText(part: ToolContent): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'image':
    case 'audio':
      return `[${part.type} ${part.mimeType}, ${approxBytes(part.data)} bytes]`;
    case 'resource':
      return 'text' in part.resource
        ? `[resource ${part.resource.uri}]\n${part.resource.text}`
        : `[resource ${part.resource.uri}${part.resource.mimeType ? ` ${part.resource.mimeType}` : ''}, ${approxBytes(part.resource.blob)} bytes]`;
    case 'resource_link':
      return `[resource link ${part.uri}: ${part.name}${part.description ? ` — ${part.description}` : ''}]`;
    default:
      return `[${(part as { type?: unknown }).type ?? 'unknown'} content]`;
  }
}

// Each 4 base64 characters carry 3 bytes, less one per `=` of padding.
const approxBytes = (base64: string): number =>
  Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

const PART_FIELDS: Record<ToolContent['type'], readonly string[]> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource: [],
  resource_link: ['uri', 'name'],
};

/**
 * What is wrong with a result's parts, in words (undefined when nothing is): each surface (a
 * page, a model provider, an MCP client) reads them, so a malformed part stops at the tool.
 * @internal
 */
export function contentProblem(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return 'toolOutput({ content }) needs `content` to be an array of parts';
  for (const [i, part] of parts.entries()) {
    const at = `content[${i}]`;
    if (typeof part !== 'object' || part === null) return `${at} must be an object with a \`type\``;
    const type = (part as { type?: unknown }).type;
    const fields = typeof type === 'string' ? PART_FIELDS[type as ToolContent['type']] : undefined;
    if (!fields || !Object.hasOwn(PART_FIELDS, type as string))
      return `${at} has type ${JSON.stringify(type)}: use one of ${Object.keys(PART_FIELDS).join(', ')}`;
    for (const field of fields)
      if (typeof (part as Record<string, unknown>)[field] !== 'string')
        return `${at} (${type}) needs \`${field}\` as a string`;
    if ((type === 'image' || type === 'audio') && !BASE64.test((part as ImageContent).data))
      return `${at} (${type}): \`data\` must be base64 of the bytes (without a "data:" prefix)`;
    if (type === 'resource') {
      const resource = (part as EmbeddedResource).resource as Partial<Record<string, unknown>> | undefined;
      if (
        typeof resource?.uri !== 'string' ||
        (typeof resource.text !== 'string' && typeof resource.blob !== 'string')
      )
        return `${at} (resource) needs \`resource: { uri, text }\` or \`resource: { uri, blob }\` (base64)`;
      if (typeof resource.blob === 'string' && !BASE64.test(resource.blob))
        return `${at} (resource): \`blob\` must be base64 of the bytes`;
    }
  }
  return undefined;
}
