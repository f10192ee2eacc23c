// A tool result's parts (toolOutput): text, images, audio, resources, links. Classic script: app.js
// calls renderParts (and h, from it). Nothing a tool sent is parsed as HTML: text is text, media
// play only from data: URLs of the types listed here, links open only for http(s).

/** Image types shown inline. Not SVG: it is a document, and a tool could hide a script in one. */
const SHOWN_IMAGES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/avif']);
const PLAYED_AUDIO = new Set([
  'audio/wav',
  'audio/x-wav',
  'audio/wave',
  'audio/mpeg',
  'audio/mp3',
  'audio/ogg',
  'audio/webm',
  'audio/flac',
  'audio/aac',
  'audio/mp4',
]);
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** Bigger media are not drawn (the page would hold them all): their note says so. */
const MEDIA_LIMIT = 16 * 1024 * 1024;

function approxBytes(base64) {
  return Math.floor((base64.length * 3) / 4) - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
}

function sizeOf(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A data: URL for media the page may show, or undefined with why not. */
function mediaURL(part, allowed) {
  const mime = typeof part.mimeType === 'string' ? part.mimeType.toLowerCase() : '';
  if (part.omitted) return { why: 'not kept after the page reloaded' };
  if (!allowed.has(mime)) return { why: `${mime || 'no type'} is not a type the page shows` };
  if (typeof part.data !== 'string' || !BASE64.test(part.data)) return { why: 'its data is not base64' };
  if (part.data.length > MEDIA_LIMIT) return { why: `too big to show (${sizeOf(approxBytes(part.data))})` };
  return { url: `data:${mime};base64,${part.data}` };
}

/** http(s) links open in a new tab; anything else (javascript:, data:, file:) is shown as text. */
function safeLink(uri, label) {
  let url;
  try {
    url = new URL(uri);
  } catch {
    return h('code', {}, label);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return h('code', {}, label);
  return h('a', { href: url.href, target: '_blank', rel: 'noopener noreferrer' }, label);
}

/**
 * The parts as two lists of nodes: `details` go in the call's collapsible body (text, resources,
 * links, notes), `media` below it, always in view (images and audio players).
 */
// biome-ignore lint/correctness/noUnusedVariables: app.js calls it (classic scripts share the global scope).
function renderParts(parts, tool, limit) {
  const details = [];
  const media = [];
  for (const part of Array.isArray(parts) ? parts : []) {
    if (!part || typeof part !== 'object') continue;
    switch (part.type) {
      case 'text':
        details.push(h('pre', { class: 'part-text', tabindex: '0' }, clip(String(part.text ?? ''), limit)));
        break;
      case 'image':
      case 'audio': {
        const { url, why } = mediaURL(part, part.type === 'image' ? SHOWN_IMAGES : PLAYED_AUDIO);
        const what = `${part.type} ${String(part.mimeType ?? '')}`;
        if (!url) {
          details.push(h('p', { class: 'part-note' }, `[${what}: ${why}]`));
          break;
        }
        details.push(
          h('p', { class: 'part-note' }, `[${what}, ${sizeOf(approxBytes(part.data))}: shown below]`),
        );
        media.push(
          part.type === 'image'
            ? h('img', { class: 'part-image', src: url, alt: `Image from ${tool}` })
            : h('audio', {
                class: 'part-audio',
                src: url,
                controls: true,
                'aria-label': `Audio from ${tool}`,
              }),
        );
        break;
      }
      case 'resource': {
        const resource = part.resource && typeof part.resource === 'object' ? part.resource : {};
        const uri = String(resource.uri ?? '');
        const head = h('p', { class: 'part-note' }, 'Resource ', h('code', {}, uri));
        if (typeof resource.text === 'string')
          details.push(head, h('pre', { class: 'part-text', tabindex: '0' }, clip(resource.text, limit)));
        else
          details.push(
            h(
              'p',
              { class: 'part-note' },
              `Resource `,
              h('code', {}, uri),
              ` (${String(resource.mimeType ?? 'binary')}, ${sizeOf(approxBytes(String(resource.blob ?? '')))})`,
            ),
          );
        break;
      }
      case 'resource_link': {
        const uri = String(part.uri ?? '');
        const name = String(part.name ?? uri);
        details.push(
          h(
            'p',
            { class: 'part-link' },
            'Link: ',
            safeLink(uri, name),
            name !== uri ? h('span', { class: 'part-uri' }, ` ${uri}`) : undefined,
            part.description ? ` — ${String(part.description)}` : undefined,
          ),
        );
        break;
      }
      default:
        details.push(h('p', { class: 'part-note' }, `[${String(part.type)} content]`));
    }
  }
  return { details, media };
}

/** Parts fit to keep in sessionStorage: media past `limit` characters keep their type only. */
// biome-ignore lint/correctness/noUnusedVariables: app.js calls it (classic scripts share the global scope).
function storableParts(parts, limit) {
  if (!Array.isArray(parts)) return undefined;
  return parts.map((part) =>
    (part?.type === 'image' || part?.type === 'audio') && String(part.data ?? '').length > limit
      ? { type: part.type, mimeType: part.mimeType, omitted: true }
      : part,
  );
}
