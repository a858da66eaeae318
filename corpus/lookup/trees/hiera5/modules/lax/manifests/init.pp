class lax {}
