"""pyhalide.lowering"""
