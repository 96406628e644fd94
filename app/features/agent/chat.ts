/** The longest message the agent reads in one turn (the box stops there too). */
export const MAX_MESSAGE_LENGTH = 1000;
