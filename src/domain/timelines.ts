/** The timeline every store starts with: the recorded history that branches are made from. */
export const PRIMARY_TIMELINE_ID = 'primary';
