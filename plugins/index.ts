export { defaultPlugins } from './defaults.ts';
