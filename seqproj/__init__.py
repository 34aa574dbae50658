"""Sequential (adaptive, martingale) random projections and linear Ensemble++."""
