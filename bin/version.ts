export { hubosVersion } from '../core/version.ts';
