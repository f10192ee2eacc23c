/** The tool that rewrites the user's working memory. */
export const MEMORY_UPDATE_TOOL = 'memory_update';
/** The tool that searches the user's earlier sessions. */
export const MEMORY_RECALL_TOOL = 'memory_recall';
