define foo(*$rest) {}
